import { startTestApp, type TestApp } from '../harness/test-app';

describe('integrations and providers through the client', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.stop());

  it('creates, lists, gets (with and without credentials), updates and deletes an integration', async () => {
    const client = app.client();
    const created = await client.createIntegration({
      provider: 'github',
      provider_config_key: 'github-main',
      oauth_client_id: 'gh-client',
      oauth_client_secret: 'gh-secret',
      oauth_scopes: 'repo,user',
    });
    expect(created).toMatchObject({
      unique_key: 'github-main',
      provider: 'github',
      auth_mode: 'OAUTH2',
    });
    expect(created).not.toHaveProperty('client_secret');

    expect(await client.listIntegrations()).toEqual([
      { unique_key: 'github-main', provider: 'github' },
    ]);
    expect(await client.getIntegration('github-main')).not.toHaveProperty('client_secret');
    expect(await client.getIntegration('github-main', true)).toMatchObject({
      client_id: 'gh-client',
      client_secret: 'gh-secret',
      scopes: 'repo,user',
    });

    await client.updateIntegration({
      provider: 'github',
      provider_config_key: 'github-main',
      oauth_client_id: 'gh-client-2',
      oauth_client_secret: 'gh-secret-2',
    });
    expect(await client.getIntegration('github-main', true)).toMatchObject({
      client_id: 'gh-client-2',
      client_secret: 'gh-secret-2',
    });

    await client.deleteIntegration('github-main');
    await expect(client.getIntegration('github-main')).rejects.toMatchObject({
      status: 404,
      code: 'integration_not_found',
    });
  });

  it('says what is wrong with a bad integration', async () => {
    const client = app.client();
    await expect(
      client.createIntegration({ provider: 'no-such-provider', provider_config_key: 'x' }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'unknown_provider',
    });
    const apiKeyWithOauth = await client
      .createIntegration({
        provider: 'stripe',
        provider_config_key: 'stripe',
        oauth_client_id: 'a',
        oauth_client_secret: 'b',
      })
      .catch((error: unknown) => error);
    expect(apiKeyWithOauth).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(
      (apiKeyWithOauth as { errors: Array<{ path: string }> }).errors.map((error) => error.path),
    ).toEqual(['oauth_client_id', 'oauth_client_secret']);
    await client.createIntegration({ provider: 'stripe', provider_config_key: 'stripe' });
    await expect(
      client.createIntegration({ provider: 'stripe', provider_config_key: 'stripe' }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'integration_already_exists',
    });
    await expect(
      client.updateIntegration({ provider: 'stripe', provider_config_key: 'missing' }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('refuses to delete an integration that still has connections', async () => {
    const client = app.client();
    await client.createIntegration({ provider: 'sendgrid', provider_config_key: 'mail' });
    await client.importConnection({
      provider_config_key: 'mail',
      connection_id: 'c1',
      api_key: 'SG.key',
    });
    await expect(client.deleteIntegration('mail')).rejects.toMatchObject({
      status: 409,
      code: 'integration_in_use',
    });
    await client.deleteConnection('mail', 'c1');
    await client.deleteIntegration('mail');
  });

  it('serves the catalog and keeps custom providers per environment', async () => {
    const client = app.client();
    const providers = await client.listProviders();
    expect(providers.length).toBeGreaterThanOrEqual(40);
    expect((await client.getProvider('github')).auth_mode).toBe('OAUTH2');

    await client.putProvider('internal-api', {
      display_name: 'Internal API',
      auth_mode: 'API_KEY',
      proxy: { base_url: 'https://internal.example.com', headers: { 'X-Key': '${apiKey}' } },
      docs: 'https://internal.example.com/docs',
    });
    expect((await client.getProvider('internal-api')).display_name).toBe('Internal API');
    await expect(app.client(app.prodKey).getProvider('internal-api')).rejects.toMatchObject({
      status: 404,
    });

    const invalid = await client
      .putProvider('broken', {
        display_name: 'Broken',
        auth_mode: 'OAUTH2',
        docs: 'https://example.com',
      })
      .catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request' });
    expect((invalid as Error).message).toMatch(/token_url/);

    await client.deleteProvider('internal-api');
    await expect(client.getProvider('internal-api')).rejects.toMatchObject({ status: 404 });
  });
});

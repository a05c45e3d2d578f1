import { JunctionError } from '../../src/client';
import { startTestApp, type TestApp } from '../harness/test-app';

describe('connections through the client', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ env: { METADATA_MAX_BYTES: '2048' } });
    const client = app.client();
    await client.createIntegration({
      provider: 'github',
      provider_config_key: 'gh',
      oauth_client_id: 'id',
      oauth_client_secret: 'secret',
    });
    await client.createIntegration({
      provider: 'trello',
      provider_config_key: 'trello',
      oauth_client_id: 'key',
      oauth_client_secret: 'secret',
    });
    await client.createIntegration({ provider: 'stripe', provider_config_key: 'stripe' });
    await client.createIntegration({ provider: 'twilio', provider_config_key: 'twilio' });
    await client.createIntegration({
      provider: 'zendesk',
      provider_config_key: 'zendesk',
      oauth_client_id: 'id',
      oauth_client_secret: 's',
    });
  });
  afterAll(() => app.stop());

  const fieldErrors = (error: unknown): string[] =>
    (error as JunctionError).errors.map((item) => item.path).sort();

  it('imports each auth mode and returns usable credentials', async () => {
    const client = app.client();
    await client.importConnection({
      provider_config_key: 'gh',
      connection_id: 'u1',
      access_token: 'gho_abc',
      metadata: { plan: 'pro' },
    });
    await client.importConnection({
      provider_config_key: 'trello',
      connection_id: 'u1',
      oauth_token: 'tok',
      oauth_token_secret: 'sec',
    });
    await client.importConnection({
      provider_config_key: 'stripe',
      connection_id: 'u1',
      api_key: 'sk_test_1',
    });
    await client.importConnection({
      provider_config_key: 'twilio',
      connection_id: 'u1',
      username: 'AC1',
      password: 'pw',
    });

    const github = await client.getConnection('gh', 'u1');
    expect(github).toMatchObject({
      provider_config_key: 'gh',
      connection_id: 'u1',
      provider: 'github',
      metadata: { plan: 'pro' },
    });
    expect(github.credentials).toEqual({
      type: 'OAUTH2',
      access_token: 'gho_abc',
      raw: { access_token: 'gho_abc', token_type: 'bearer' },
    });
    expect((await client.getConnection('trello', 'u1')).credentials).toMatchObject({
      type: 'OAUTH1',
      oauth_token: 'tok',
      oauth_token_secret: 'sec',
    });
    expect((await client.getConnection('stripe', 'u1')).credentials).toEqual({
      type: 'API_KEY',
      apiKey: 'sk_test_1',
    });
    expect((await client.getConnection('twilio', 'u1')).credentials).toEqual({
      type: 'BASIC',
      username: 'AC1',
      password: 'pw',
    });
  });

  it('lists every missing or foreign field of an import, per auth mode', async () => {
    const client = app.client();
    const cases: Array<[Parameters<typeof client.importConnection>[0], string[]]> = [
      [
        { provider_config_key: 'gh', connection_id: 'x', api_key: 'k' },
        ['access_token', 'api_key'],
      ],
      [
        { provider_config_key: 'trello', connection_id: 'x', oauth_token: 't', access_token: 'a' },
        ['access_token', 'oauth_token_secret'],
      ],
      [
        { provider_config_key: 'stripe', connection_id: 'x', username: 'u' },
        ['api_key', 'username'],
      ],
      [
        { provider_config_key: 'twilio', connection_id: 'x', username: 'u', refresh_token: 'r' },
        ['password', 'refresh_token'],
      ],
      [
        { provider_config_key: 'zendesk', connection_id: 'x', access_token: 'a' },
        ['connection_config.subdomain'],
      ],
    ];
    for (const [input, paths] of cases) {
      const error = await client.importConnection(input).catch((caught: unknown) => caught);
      expect({ input, status: (error as JunctionError).status }).toEqual({ input, status: 400 });
      expect(fieldErrors(error)).toEqual(paths);
    }
    const wrongTypes = await fetch(`${app.url}/connection`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.devKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        provider_config_key: 'gh',
        connection_id: 5,
        access_token: 'a',
        expires_at: 'tomorrow',
        surprise: 1,
      }),
    });
    expect(wrongTypes.status).toBe(400);
    const body = (await wrongTypes.json()) as { error: { errors: Array<{ path: string }> } };
    expect([...new Set(body.error.errors.map((item) => item.path))].sort()).toEqual([
      'connection_id',
      'expires_at',
      'surprise',
    ]);
    await expect(
      client.importConnection({
        provider_config_key: 'nope',
        connection_id: 'x',
        access_token: 'a',
      }),
    ).rejects.toMatchObject({ status: 404 });
    expect((await client.listConnections('x')).connections).toEqual([]);
  });

  it('replaces credentials on re-import and keeps connection_config', async () => {
    const client = app.client();
    await client.importConnection({
      provider_config_key: 'zendesk',
      connection_id: 'z',
      access_token: 'one',
      connection_config: { subdomain: 'acme' },
    });
    await client.importConnection({
      provider_config_key: 'zendesk',
      connection_id: 'z',
      access_token: 'two',
      connection_config: { subdomain: 'acme' },
    });
    const connection = await client.getConnection('zendesk', 'z');
    expect(connection.credentials).toMatchObject({ access_token: 'two' });
    expect(connection.connection_config).toEqual({ subdomain: 'acme' });
    expect((await client.listConnections('z')).connections).toHaveLength(1);
  });

  it('lists connections without credentials, filtered by connection ID', async () => {
    const client = app.client();
    const all = await client.listConnections();
    expect(all.connections.length).toBeGreaterThanOrEqual(4);
    const mine = await client.listConnections('u1');
    expect(mine.connections.map((item) => item.provider_config_key).sort()).toEqual([
      'gh',
      'stripe',
      'trello',
      'twilio',
    ]);
    expect(Object.keys(mine.connections[0] ?? {}).sort()).toEqual([
      'connection_id',
      'created',
      'id',
      'metadata',
      'provider',
      'provider_config_key',
    ]);
    const text = JSON.stringify(all);
    for (const secret of ['gho_abc', 'sk_test_1', 'pw', 'sec'])
      expect(text).not.toContain(`"${secret}"`);
  });

  it('sets, merges and reads metadata for one or several connections', async () => {
    const client = app.client();
    await client.importConnection({
      provider_config_key: 'stripe',
      connection_id: 'm1',
      api_key: 'k1',
    });
    await client.importConnection({
      provider_config_key: 'stripe',
      connection_id: 'm2',
      api_key: 'k2',
    });
    await client.setMetadata('stripe', ['m1', 'm2'], { region: 'eu', tier: 1 });
    await client.updateMetadata('stripe', 'm1', { tier: 2, owner: 'ana' });
    expect(await client.getMetadata('stripe', 'm1')).toEqual({
      region: 'eu',
      tier: 2,
      owner: 'ana',
    });
    expect(await client.getMetadata('stripe', 'm2')).toEqual({ region: 'eu', tier: 1 });
    await client.setMetadata('stripe', 'm1', { replaced: true });
    expect(await client.getMetadata('stripe', 'm1')).toEqual({ replaced: true });

    const unknown = await client
      .setMetadata('stripe', ['m2', 'ghost'], { lost: true })
      .catch((caught: unknown) => caught);
    expect(unknown).toMatchObject({ status: 404, code: 'connection_not_found' });
    expect((unknown as Error).message).toContain('"ghost"');
    expect(await client.getMetadata('stripe', 'm2')).toEqual({ region: 'eu', tier: 1 });

    await expect(
      client.updateMetadata('stripe', 'm2', { blob: 'x'.repeat(3000) }),
    ).rejects.toMatchObject({ status: 413, code: 'metadata_too_large' });
    expect(await client.getMetadata('stripe', 'm2')).toEqual({ region: 'eu', tier: 1 });
  });

  it('deletes a connection and throws when there is nothing to delete', async () => {
    const client = app.client();
    await client.importConnection({
      provider_config_key: 'stripe',
      connection_id: 'gone',
      api_key: 'k',
    });
    await client.deleteConnection('stripe', 'gone');
    await expect(client.getConnection('stripe', 'gone')).rejects.toMatchObject({
      status: 404,
      code: 'connection_not_found',
    });
    await expect(client.deleteConnection('stripe', 'gone')).rejects.toBeInstanceOf(JunctionError);
  });

  it('keeps environments apart: a dev connection is invisible with the prod key', async () => {
    const prod = app.client(app.prodKey);
    expect((await prod.listConnections()).connections).toEqual([]);
    await expect(prod.getConnection('gh', 'u1')).rejects.toMatchObject({ status: 404 });
    await expect(prod.deleteConnection('gh', 'u1')).rejects.toMatchObject({ status: 404 });
    await expect(prod.setMetadata('gh', 'u1', { x: 1 })).rejects.toMatchObject({ status: 404 });
    expect(await prod.listIntegrations()).toEqual([]);
    expect((await app.client().getConnection('gh', 'u1')).metadata).toEqual({ plan: 'pro' });
  });

  it('stores environment variables per environment', async () => {
    const client = app.client();
    expect(await client.getEnvironmentVariables()).toEqual([]);
    await client.setEnvironmentVariables([
      { name: 'REGION', value: 'eu-west-1' },
      { name: 'API_TOKEN', value: 'env-secret-value' },
    ]);
    expect(await client.getEnvironmentVariables()).toEqual([
      { name: 'API_TOKEN', value: 'env-secret-value' },
      { name: 'REGION', value: 'eu-west-1' },
    ]);
    expect(await app.client(app.prodKey).getEnvironmentVariables()).toEqual([]);
    await expect(
      client.setEnvironmentVariables([{ name: '1bad', value: 'x' }]),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      client.setEnvironmentVariables([
        { name: 'A', value: '1' },
        { name: 'A', value: '2' },
      ]),
    ).rejects.toMatchObject({ status: 400 });
    expect(await client.getEnvironmentVariables()).toHaveLength(2);
  });
});

import type { FakeOAuth2Provider } from '../fixtures/fake-oauth2-provider';
import { CLIENT_ID, CLIENT_SECRET, fakeOAuthIntegration } from '../harness/fake-oauth-setup';
import { queryDatabase } from '../harness/databases';
import { startTestApp, type TestApp } from '../harness/test-app';

describe('OAuth 2 credentials through the client', () => {
  let app: TestApp;
  let fake: FakeOAuth2Provider;
  let basicFake: FakeOAuth2Provider;
  const inAnHour = (): string => new Date(Date.now() + 3600_000).toISOString();
  const expired = (): string => new Date(Date.now() - 60_000).toISOString();

  beforeAll(async () => {
    app = await startTestApp();
    fake = await fakeOAuthIntegration(app.client(), 'crm');
    basicFake = await fakeOAuthIntegration(app.client(), 'crm-basic', { tokenAuth: 'basic' });
  });
  afterAll(async () => {
    await fake.stop();
    await basicFake.stop();
    await app.stop();
  });

  async function importExpired(
    connectionId: string,
    provider = fake,
    integrationId = 'crm',
  ): Promise<string> {
    const refreshToken = provider.issueRefreshToken();
    await app.client().importConnection({
      provider_config_key: integrationId,
      connection_id: connectionId,
      access_token: 'imported-token',
      refresh_token: refreshToken,
      expires_at: expired(),
    });
    return refreshToken;
  }

  it('returns a valid token as imported, without calling the provider', async () => {
    await app.client().importConnection({
      provider_config_key: 'crm',
      connection_id: 'valid',
      access_token: 'still-good',
      refresh_token: fake.issueRefreshToken(),
      expires_at: inAnHour(),
    });
    const before = fake.calls.length;
    const connection = await app.client().getConnection('crm', 'valid');
    expect(fake.calls.length).toBe(before);
    expect(connection.credentials).toMatchObject({ type: 'OAUTH2', access_token: 'still-good' });
    expect(connection.credentials).not.toHaveProperty('refresh_token');
    expect(connection.credentials).toHaveProperty('expires_at');
  });

  it('refreshes an expired token, keeps the rotated refresh token and moves updated_at', async () => {
    const firstRefreshToken = await importExpired('expired');
    const imported = await app.client().getConnection('crm', 'valid');
    const connection = await app.client().getConnection('crm', 'expired', false, true);
    expect(connection.credentials.type).toBe('OAUTH2');
    if (connection.credentials.type !== 'OAUTH2') return;
    expect(fake.isValidAccessToken(connection.credentials.access_token)).toBe(true);
    expect(connection.credentials.refresh_token).not.toBe(firstRefreshToken);
    expect(connection.credentials.raw).toMatchObject({ token_type: 'bearer', scope: 'read write' });
    expect(Date.parse(connection.credentials.expires_at ?? '')).toBeGreaterThan(
      Date.now() + 3000_000,
    );
    expect(Date.parse(connection.updated_at)).toBeGreaterThan(Date.parse(imported.updated_at));
    expect(fake.calls.at(-1)).toMatchObject({
      grantType: 'refresh_token',
      refreshToken: firstRefreshToken,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      basicAuth: false,
    });

    // A second call finds a fresh token: no provider call.
    const calls = fake.calls.length;
    const again = await app.client().getConnection('crm', 'expired');
    expect(fake.calls.length).toBe(calls);
    expect(again.credentials).toMatchObject({ access_token: connection.credentials.access_token });
  });

  it('force-refreshes with the latest rotated refresh token each time', async () => {
    await importExpired('forced');
    const tokens = new Set<string>();
    for (let round = 0; round < 3; round += 1) {
      const connection = await app.client().getConnection('crm', 'forced', true);
      if (connection.credentials.type === 'OAUTH2') tokens.add(connection.credentials.access_token);
    }
    expect(tokens.size).toBe(3);
  });

  it('keeps the old refresh token when the provider returns none', async () => {
    const refreshToken = await importExpired('no-rotation');
    fake.omitRefreshToken = true;
    try {
      const connection = await app.client().getConnection('crm', 'no-rotation', true, true);
      expect(connection.credentials).toMatchObject({ refresh_token: refreshToken });
    } finally {
      fake.omitRefreshToken = false;
    }
  });

  it('authenticates to token endpoints that want a Basic header', async () => {
    await importExpired('basic-client', basicFake, 'crm-basic');
    await app.client().getConnection('crm-basic', 'basic-client');
    expect(basicFake.calls.at(-1)).toMatchObject({
      basicAuth: true,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
    });
  });

  it('answers a refused refresh with 424 and the provider error, and keeps the credentials', async () => {
    await importExpired('refused');
    fake.revokeAll();
    const error = await app
      .client()
      .getConnection('crm', 'refused')
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 424, code: 'refresh_token_external_error' });
    expect((error as Error).message).toMatch(/invalid_grant/);

    const [row] = await queryDatabase<{
      refresh_failures: number;
      last_refresh_error: string;
      credentials: string;
    }>(
      app.database.url,
      "SELECT refresh_failures, last_refresh_error, credentials FROM connections WHERE connection_id = 'refused'",
    );
    expect(row?.refresh_failures).toBe(1);
    expect(row?.last_refresh_error).toMatch(/invalid_grant/);
    const listed = await app.client().listConnections('refused');
    expect(listed.connections).toHaveLength(1);
    const [after] = await queryDatabase<{ credentials: string }>(
      app.database.url,
      "SELECT credentials FROM connections WHERE connection_id = 'refused'",
    );
    expect(after?.credentials).toBe(row?.credentials);
  });

  it('prefers expires_at over expires_in', async () => {
    const expiresAt = inAnHour();
    await app.client().importConnection({
      provider_config_key: 'crm',
      connection_id: 'both-expiries',
      access_token: 'token',
      refresh_token: fake.issueRefreshToken(),
      expires_at: expiresAt,
      expires_in: 5,
    });
    const connection = await app.client().getConnection('crm', 'both-expiries');
    expect(connection.credentials).toMatchObject({ expires_at: expiresAt });
  });
});

import { type Junction } from '../../src/client';
import type { FakeOAuth2Provider } from '../fixtures/fake-oauth2-provider';
import { fakeOAuthIntegration } from '../harness/fake-oauth-setup';
import type { JunctionProcess } from '../harness/junction-process';
import { startApiBeside, startTestApp, type TestApp } from '../harness/test-app';

describe('concurrent refreshes across API processes', () => {
  let app: TestApp;
  let second: JunctionProcess;
  let secondClient: Junction;
  let fake: FakeOAuth2Provider;

  beforeAll(async () => {
    app = await startTestApp();
    ({ process: second, client: secondClient } = await startApiBeside(app));
    fake = await fakeOAuthIntegration(app.client(), 'crm');
  });
  afterAll(async () => {
    await second.stop('SIGTERM');
    await fake.stop();
    await app.stop();
  });

  it('100 concurrent getConnection calls on an expired token make exactly one token call, and all get its token', async () => {
    await app.client().importConnection({
      provider_config_key: 'crm',
      connection_id: 'busy',
      access_token: 'expired-token',
      refresh_token: fake.issueRefreshToken(),
      expires_at: new Date(Date.now() - 1000).toISOString(),
    });
    fake.delayMs = 300;
    const before = fake.calls.length;
    const clients = [app.client(), secondClient];
    const results = await Promise.all(
      Array.from({ length: 100 }, (_unused, index) =>
        clients[index % 2]!.getConnection('crm', 'busy'),
      ),
    );
    fake.delayMs = 0;
    expect(fake.calls.length - before).toBe(1);
    const tokens = new Set(
      results.map((result) =>
        result.credentials.type === 'OAUTH2' ? result.credentials.access_token : '',
      ),
    );
    expect(tokens.size).toBe(1);
    const [token] = [...tokens];
    expect(fake.isValidAccessToken(token ?? '')).toBe(true);
    const stored = await app.client().getConnection('crm', 'busy');
    expect(stored.credentials).toMatchObject({ access_token: token });
  });

  it('lets waiters in the other process see a refusal instead of retrying it', async () => {
    await app.client().importConnection({
      provider_config_key: 'crm',
      connection_id: 'refused-busy',
      access_token: 'expired-token',
      refresh_token: 'never-issued',
      expires_at: new Date(Date.now() - 1000).toISOString(),
    });
    fake.delayMs = 200;
    const before = fake.calls.length;
    const clients = [app.client(), secondClient];
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_unused, index) =>
        clients[index % 2]!.getConnection('crm', 'refused-busy').then(
          () => 'ok',
          (error: { code?: string }) => error.code,
        ),
      ),
    );
    fake.delayMs = 0;
    expect(fake.calls.length - before).toBe(1);
    expect(new Set(outcomes)).toEqual(new Set(['refresh_token_external_error']));
  });
});

import { Junction } from '../../src/client';
import type { JunctionProcess } from '../harness/junction-process';
import { startApiBeside, startTestApp, type TestApp } from '../harness/test-app';

describe('request logs', () => {
  let app: TestApp;
  let api: JunctionProcess;

  beforeAll(async () => {
    app = await startTestApp();
    ({ process: api } = await startApiBeside(app, 'info'));
  });
  afterAll(async () => {
    await api.stop('SIGKILL');
    await app.stop();
  });

  it('writes one JSON line per request with its request id, and never a secret', async () => {
    const url = api.banner('API') ?? '';
    const client = new Junction({ secretKey: app.devKey, host: url });
    await client.createIntegration({ provider: 'stripe', provider_config_key: 'stripe' });
    await client.importConnection({
      provider_config_key: 'stripe',
      connection_id: 'c',
      api_key: 'sk_live_never_logged',
    });
    await client.getConnection('stripe', 'c');
    const response = await fetch(`${url}/environment`, {
      headers: { authorization: `Bearer ${app.devKey}`, 'x-request-id': 'trace-log-1' },
    });
    expect(response.status).toBe(200);

    const deadline = Date.now() + 5000;
    while (!api.output().includes('trace-log-1') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const lines = api
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map(
        (line) =>
          JSON.parse(line) as {
            req?: { id?: string; url?: string };
            res?: { statusCode?: number };
          },
      );
    const logged = lines.find((line) => line.req?.id === 'trace-log-1');
    expect(logged).toMatchObject({ req: { url: '/environment' }, res: { statusCode: 200 } });
    expect(api.output()).not.toContain(app.devKey);
    expect(api.output()).not.toContain('sk_live_never_logged');
  });

  it('stops accepting, finishes and exits 0 on SIGTERM', async () => {
    expect(await api.stop('SIGTERM')).toBe(0);
  });
});

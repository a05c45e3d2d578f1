import { freePort } from '../harness/ports';
import { startTestApp, type TestApp } from '../harness/test-app';

describe('readiness', () => {
  let app: TestApp;

  afterEach(() => app.stop());

  it('is 200 when PostgreSQL and Temporal answer', async () => {
    app = await startTestApp();
    const response = await fetch(`${app.url}/ready`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', temporal: 'ok' },
    });
  });

  it('is 503 naming Temporal when Temporal is unreachable, while liveness stays 200', async () => {
    app = await startTestApp({ env: { TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` } });
    const response = await fetch(`${app.url}/ready`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as {
      error: { code: string; errors: Array<{ path: string }> };
    };
    expect(body.error.code).toBe('dependency_unavailable');
    expect(body.error.errors.map((error) => error.path)).toEqual(['temporal']);
    expect((await fetch(`${app.url}/health`)).status).toBe(200);
  });
});

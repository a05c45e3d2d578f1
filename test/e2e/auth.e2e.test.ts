import { JunctionError } from '../../src/client';
import { startTestApp, randomKey, type TestApp } from '../harness/test-app';

describe('authentication', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.stop());

  const PUBLIC_ROUTES = new Set(['/health', '/ready']);
  const isPublic = (url: string): boolean =>
    PUBLIC_ROUTES.has(url) || url === '/docs' || url.startsWith('/docs/');

  it('refuses every registered route without a key, except health, readiness and docs', async () => {
    const routes = app.service.routes.filter(
      (route) => !['HEAD', 'OPTIONS'].includes(route.method),
    );
    const guarded = routes.filter((route) => !isPublic(route.url));
    expect(guarded.map((route) => `${route.method} ${route.url}`)).toEqual(
      expect.arrayContaining(['GET /environment', 'PATCH /environment']),
    );
    for (const route of guarded) {
      const path = route.url.replace(/:(\w+)/g, 'sample-$1').replace(/\*/g, 'anything');
      for (const authorization of [
        undefined,
        'Bearer',
        'Basic abc',
        `Bearer ${randomKey('wrong')}`,
      ]) {
        const response = await fetch(`${app.url}${path}`, {
          method: route.method,
          headers: authorization ? { authorization } : {},
        });
        const body = (await response.json()) as { error?: { code?: string } };
        expect({
          route: `${route.method} ${path}`,
          authorization,
          status: response.status,
        }).toEqual({
          route: `${route.method} ${path}`,
          authorization,
          status: 401,
        });
        expect(body.error?.code).toMatch(/^(missing|malformed|unknown)_api_key$/);
      }
    }
  });

  it('says which problem the key has', async () => {
    const codes = await Promise.all(
      [undefined, 'Token abc', `Bearer ${randomKey('wrong')}`].map(async (authorization) => {
        const response = await fetch(`${app.url}/environment`, {
          headers: authorization ? { authorization } : {},
        });
        return ((await response.json()) as { error: { code: string } }).error.code;
      }),
    );
    expect(codes).toEqual(['missing_api_key', 'malformed_api_key', 'unknown_api_key']);
  });

  it('serves health, readiness and docs without a key', async () => {
    for (const path of ['/health', '/ready', '/docs', '/docs/openapi.json']) {
      const response = await fetch(`${app.url}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
    }
    const openApi = (await (await fetch(`${app.url}/docs/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openApi.paths)).toEqual(
      expect.arrayContaining(['/environment', '/health', '/ready']),
    );
  });

  it('selects the environment by key, and keeps environments apart', async () => {
    const dev = app.client(app.devKey);
    const prod = app.client(app.prodKey);
    expect((await dev.getEnvironment()).name).toBe('dev');
    expect((await prod.getEnvironment()).name).toBe('prod');

    await dev.updateEnvironment({ webhook_url: 'http://127.0.0.1:9/dev-hooks' });
    expect((await dev.getEnvironment()).webhook_url).toBe('http://127.0.0.1:9/dev-hooks');
    expect((await prod.getEnvironment()).webhook_url).toBeNull();

    await dev.updateEnvironment({ webhook_url: null });
    expect((await dev.getEnvironment()).webhook_url).toBeNull();
  });

  it('never shows a secret in the environment', async () => {
    const environment = await app.client().getEnvironment();
    const text = JSON.stringify(environment);
    expect(text).not.toContain(app.devKey);
    expect(Object.keys(environment).sort()).toEqual([
      'created_at',
      'name',
      'updated_at',
      'webhook_url',
    ]);
  });

  it('gives the client a typed error carrying status and code', async () => {
    const error = await app
      .client(randomKey('wrong'))
      .getEnvironment()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JunctionError);
    expect(error).toMatchObject({ status: 401, code: 'unknown_api_key' });
  });
});

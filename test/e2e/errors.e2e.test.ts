import { startTestApp, type TestApp } from '../harness/test-app';

describe('error envelope and request handling', () => {
  let app: TestApp;
  const bodyLimit = 4096;

  beforeAll(async () => {
    app = await startTestApp({ env: { BODY_LIMIT_BYTES: String(bodyLimit) } });
  });
  afterAll(() => app.stop());

  function patchEnvironment(body: string, contentType = 'application/json'): Promise<Response> {
    return fetch(`${app.url}/environment`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${app.devKey}`, 'content-type': contentType },
      body,
    });
  }

  async function errorOf(
    response: Response,
  ): Promise<{ code: string; message: string; errors?: unknown[] }> {
    const body = (await response.json()) as {
      error: { code: string; message: string; errors?: unknown[] };
    };
    return body.error;
  }

  it('answers malformed JSON with 400 and changes nothing', async () => {
    await app.client().updateEnvironment({ webhook_url: 'http://127.0.0.1:9/kept' });
    const response = await patchEnvironment('{"webhook_url": ');
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toMatch(/JSON/);
    expect((await app.client().getEnvironment()).webhook_url).toBe('http://127.0.0.1:9/kept');
  });

  it('lists every field problem: wrong types and unknown fields', async () => {
    const response = await patchEnvironment(JSON.stringify({ webhook_url: 42, surprise: true }));
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('invalid_request');
    expect(error.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'webhook_url' }),
        expect.objectContaining({ path: 'surprise' }),
      ]),
    );
  });

  it('refuses a URL that is not http or https', async () => {
    const response = await patchEnvironment(
      JSON.stringify({ webhook_url: 'ftp://example.com/hook' }),
    );
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_request' });
  });

  it('answers an oversized body with 413', async () => {
    const response = await patchEnvironment(
      JSON.stringify({ webhook_url: `http://a.test/${'x'.repeat(bodyLimit)}` }),
    );
    expect(response.status).toBe(413);
    expect(await errorOf(response)).toMatchObject({ code: 'payload_too_large' });
  });

  it('answers an unknown route with 404 in the envelope', async () => {
    const response = await fetch(`${app.url}/no-such-route`, {
      headers: { authorization: `Bearer ${app.devKey}` },
    });
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toMatchObject({ code: 'route_not_found' });
  });

  it('tags each response with a request id, keeping a sane one given by the caller', async () => {
    const given = await fetch(`${app.url}/health`, { headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-123');
    const generated = await fetch(`${app.url}/health`, {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('counts requests by route and status on the operator port', async () => {
    await fetch(`${app.url}/environment`);
    const metrics = await (await fetch(app.service.metricsUrl)).text();
    expect(metrics).toMatch(
      /junction_http_requests_total\{method="GET",route="\/environment",status="401"\} [1-9]/,
    );
    expect(metrics).toContain('junction_http_request_duration_seconds_bucket');
  });
});

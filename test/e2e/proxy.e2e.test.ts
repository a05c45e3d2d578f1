import { randomBytes } from 'node:crypto';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { hmacsign } from 'oauth-sign';
import type { Junction } from '../../src/client';
import { FakeUpstream } from '../fixtures/fake-upstream';
import { fakeOAuthIntegration } from '../harness/fake-oauth-setup';
import { freePort } from '../harness/ports';
import { startTestApp, type TestApp } from '../harness/test-app';

function rawStatus(url: string, headers: Record<string, string>): Promise<number> {
  const { hostname, port } = new URL(url);
  const path = url.slice(url.indexOf('/', url.indexOf('//') + 2));
  return new Promise((resolve, reject) => {
    const request = httpRequest({ hostname, port, path, headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}

interface Echo {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

describe('proxy through the client', () => {
  let app: TestApp;
  let upstream: FakeUpstream;
  let client: Junction;

  beforeAll(async () => {
    app = await startTestApp({ env: { PROXY_TIMEOUT_MS: '1000' } });
    upstream = await new FakeUpstream().start();
    client = app.client();
    const docs = 'https://example.com/docs';
    const base = `${upstream.url}/api`;
    await client.putProvider('up-oauth2', {
      display_name: 'Upstream OAuth 2',
      auth_mode: 'OAUTH2',
      authorization_url: `${upstream.url}/authorize`,
      token_url: `${upstream.url}/token`,
      proxy: { base_url: base, headers: { 'X-Api-Version': '2024-01' } },
      docs,
    });
    await client.putProvider('up-key-header', {
      display_name: 'Key in header',
      auth_mode: 'API_KEY',
      proxy: { base_url: base, headers: { 'X-Api-Key': '${apiKey}' } },
      docs,
    });
    await client.putProvider('up-key-query', {
      display_name: 'Key in query',
      auth_mode: 'API_KEY',
      proxy: { base_url: base, query: { api_key: '${apiKey}' } },
      docs,
    });
    await client.putProvider('up-basic', {
      display_name: 'Basic',
      auth_mode: 'BASIC',
      proxy: { base_url: base, headers: { Authorization: 'Basic ${base64(username:password)}' } },
      docs,
    });
    await client.putProvider('up-oauth1', {
      display_name: 'OAuth 1',
      auth_mode: 'OAUTH1',
      request_url: `${upstream.url}/request`,
      authorization_url: `${upstream.url}/authorize`,
      token_url: `${upstream.url}/access`,
      proxy: { base_url: base },
      docs,
    });
    await client.putProvider('up-nobase', {
      display_name: 'No base',
      auth_mode: 'API_KEY',
      proxy: { headers: { 'X-Api-Key': '${apiKey}' } },
      docs,
    });
    await client.createIntegration({
      provider: 'up-oauth2',
      provider_config_key: 'o2',
      oauth_client_id: 'id',
      oauth_client_secret: 'secret',
    });
    await client.createIntegration({ provider: 'up-key-header', provider_config_key: 'kh' });
    await client.createIntegration({ provider: 'up-key-query', provider_config_key: 'kq' });
    await client.createIntegration({ provider: 'up-basic', provider_config_key: 'basic' });
    await client.createIntegration({
      provider: 'up-oauth1',
      provider_config_key: 'o1',
      oauth_client_id: 'consumer-key',
      oauth_client_secret: 'consumer-secret',
    });
    await client.createIntegration({ provider: 'up-nobase', provider_config_key: 'nobase' });
    await client.importConnection({
      provider_config_key: 'o2',
      connection_id: 'c',
      access_token: 'bearer-token-1',
    });
    await client.importConnection({
      provider_config_key: 'kh',
      connection_id: 'c',
      api_key: 'key-in-header',
    });
    await client.importConnection({
      provider_config_key: 'kq',
      connection_id: 'c',
      api_key: 'key-in-query',
    });
    await client.importConnection({
      provider_config_key: 'basic',
      connection_id: 'c',
      username: 'ann',
      password: 'p@ss:word',
    });
    await client.importConnection({
      provider_config_key: 'o1',
      connection_id: 'c',
      oauth_token: 'token-1',
      oauth_token_secret: 'token-secret-1',
    });
    await client.importConnection({
      provider_config_key: 'nobase',
      connection_id: 'c',
      api_key: 'k',
    });
  });
  beforeEach(() => upstream.reset());
  afterAll(async () => {
    await upstream.stop();
    await app.stop();
  });

  const echo = async (
    providerConfigKey: string,
    extra: Partial<Parameters<Junction['proxy']>[0]> = {},
  ): Promise<Echo> =>
    (
      await client.proxy<Echo>({
        endpoint: '/echo',
        providerConfigKey,
        connectionId: 'c',
        ...extra,
      })
    ).data;

  it('attaches OAuth 2 bearer tokens and provider headers; forwards query and prefixed headers only', async () => {
    const response = await fetch(`${app.url}/proxy/echo?page=2&q=a%20b`, {
      headers: {
        authorization: `Bearer ${app.devKey}`,
        'connection-id': 'c',
        'provider-config-key': 'o2',
        'junction-proxy-x-trace': 'abc',
        'nango-proxy-x-legacy': 'def',
        'x-not-forwarded': 'secret-internal',
      },
    });
    expect(response.status).toBe(200);
    const received = (await response.json()) as Echo;
    expect(received.url).toBe('/api/echo?page=2&q=a%20b');
    expect(received.headers).toMatchObject({
      authorization: 'Bearer bearer-token-1',
      'x-api-version': '2024-01',
      'x-trace': 'abc',
      'x-legacy': 'def',
    });
    expect(received.headers).not.toHaveProperty('x-not-forwarded');
    expect(received.headers).not.toHaveProperty('connection-id');
    expect(JSON.stringify(received.headers)).not.toContain(app.devKey);
  });

  it('attaches API keys by header or query template, and Basic credentials', async () => {
    expect((await echo('kh')).headers['x-api-key']).toBe('key-in-header');
    expect((await echo('kq')).url).toBe('/api/echo?api_key=key-in-query');
    expect((await echo('basic')).headers.authorization).toBe(
      `Basic ${Buffer.from('ann:p@ss:word').toString('base64')}`,
    );
  });

  it('signs OAuth 1 requests (HMAC-SHA1) so that an independent implementation verifies them', async () => {
    const received = await echo('o1', {
      method: 'POST',
      params: { b: '2', a: '1' },
      data: 'status=hello%20world',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    const header = received.headers.authorization ?? '';
    expect(header.startsWith('OAuth ')).toBe(true);
    const oauthParams = Object.fromEntries(
      [...header.slice(6).matchAll(/(\w+)="([^"]*)"/g)].map((match) => [
        match[1] ?? '',
        decodeURIComponent(match[2] ?? ''),
      ]),
    );
    expect(oauthParams).toMatchObject({
      oauth_consumer_key: 'consumer-key',
      oauth_token: 'token-1',
      oauth_signature_method: 'HMAC-SHA1',
    });
    const { oauth_signature: signature, ...signed } = oauthParams;
    const expected = hmacsign(
      'POST',
      `${upstream.url}/api/echo`,
      { ...signed, a: '1', b: '2', status: 'hello world' },
      'consumer-secret',
      'token-secret-1',
    );
    expect(signature).toBe(expected);
    expect(received.body).toBe('status=hello%20world');
  });

  it('retries 503s with Retries: succeeds with 2, passes the 503 through with 1', async () => {
    const ok = await client.proxy<{ attempt: number }>({
      endpoint: '/flaky',
      providerConfigKey: 'kh',
      connectionId: 'c',
      retries: 2,
    });
    expect(ok.status).toBe(200);
    expect(ok.data.attempt).toBe(3);
    upstream.reset();
    const failed = await client.proxy({
      endpoint: '/flaky',
      providerConfigKey: 'kh',
      connectionId: 'c',
      retries: 1,
    });
    expect(failed.status).toBe(503);
    expect(upstream.attemptsOf('/flaky')).toBe(2);
  });

  it('honours Retry-After', async () => {
    const started = Date.now();
    const response = await client.proxy({
      endpoint: '/rate-limited',
      providerConfigKey: 'kh',
      connectionId: 'c',
      retries: 1,
    });
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('never retries a 2xx or a plain 4xx, and retries extra codes given in Retry-On', async () => {
    expect(
      (
        await client.proxy({
          endpoint: '/created',
          providerConfigKey: 'kh',
          connectionId: 'c',
          retries: 3,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await client.proxy({
          endpoint: '/missing',
          providerConfigKey: 'kh',
          connectionId: 'c',
          retries: 3,
        })
      ).status,
    ).toBe(404);
    expect(upstream.attemptsOf('/created')).toBe(1);
    expect(upstream.attemptsOf('/missing')).toBe(1);
    await client.proxy({
      endpoint: '/missing',
      providerConfigKey: 'kh',
      connectionId: 'c',
      retries: 2,
      retryOn: [404],
    });
    expect(upstream.attemptsOf('/missing')).toBe(4);
  });

  it('replays a POST body byte for byte on every retry', async () => {
    const payload = randomBytes(256 * 1024);
    upstream.on('/upload', (request, response, attempt) => {
      response
        .writeHead(attempt < 3 ? 502 : 200, { 'content-type': 'text/plain' })
        .end(request.bodySha256);
    });
    const response = await fetch(`${app.url}/proxy/upload`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${app.devKey}`,
        'connection-id': 'c',
        'provider-config-key': 'kh',
        retries: '3',
        'content-type': 'application/octet-stream',
      },
      body: payload,
    });
    expect(response.status).toBe(200);
    const uploads = upstream.received.filter((request) => request.url === '/api/upload');
    expect(uploads).toHaveLength(3);
    for (const upload of uploads) expect(upload.body.equals(payload)).toBe(true);
  });

  it('streams a binary download byte for byte and passes compressed bodies untouched unless asked', async () => {
    const binary = await client.proxy<ArrayBuffer>({
      endpoint: '/binary',
      providerConfigKey: 'kh',
      connectionId: 'c',
      responseType: 'arraybuffer',
    });
    expect(Buffer.from(binary.data).equals(upstream.binary)).toBe(true);
    expect(binary.headers['content-length']).toBe(String(upstream.binary.length));

    const raw = await client.proxy<ArrayBuffer>({
      endpoint: '/gzip',
      providerConfigKey: 'kh',
      connectionId: 'c',
      responseType: 'arraybuffer',
    });
    expect(raw.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(Buffer.from(raw.data)).toString('utf8'))).toMatchObject({
      compressed: true,
    });
    const decoded = await client.proxy<{ compressed: boolean }>({
      endpoint: '/gzip',
      providerConfigKey: 'kh',
      connectionId: 'c',
      decompress: true,
    });
    expect(decoded.headers['content-encoding']).toBeUndefined();
    expect(decoded.data.compressed).toBe(true);
  });

  it('refuses endpoints that would leave the provider host', async () => {
    for (const endpoint of [
      'http://evil.example/x',
      '//evil.example/x',
      '%2F%2Fevil.example/x',
      'a/%2E%2E/%2E%2E/x',
      'a\\b',
      '%2e%2e/x',
      'https:%2F%2Fevil.example',
    ]) {
      // node:http sends the path as written (fetch would normalise dot segments first).
      const status = await rawStatus(`${app.url}/proxy/${endpoint}`, {
        authorization: `Bearer ${app.devKey}`,
        'connection-id': 'c',
        'provider-config-key': 'kh',
      });
      expect({ endpoint, status }).toEqual({ endpoint, status: 400 });
    }
    expect(upstream.received).toHaveLength(0);
    await expect(
      client.proxy({
        endpoint: '/echo',
        providerConfigKey: 'kh',
        connectionId: 'c',
        baseUrlOverride: 'ftp://files.example',
      }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('needs Base-Url-Override when the provider has no base URL, and uses it', async () => {
    const missing = await client
      .proxy({ endpoint: '/echo', providerConfigKey: 'nobase', connectionId: 'c' })
      .catch((error: unknown) => error);
    expect(missing).toMatchObject({ status: 400, code: 'missing_base_url' });
    expect((missing as Error).message).toContain('Base-Url-Override');
    const overridden = await client.proxy<Echo>({
      endpoint: '/echo',
      providerConfigKey: 'nobase',
      connectionId: 'c',
      baseUrlOverride: `${upstream.url}/api`,
    });
    expect(overridden.data.headers['x-api-key']).toBe('k');
  });

  it('answers its own failures in the envelope: unknown connection 404, unreachable 502, timeout 504', async () => {
    await expect(
      client.proxy({ endpoint: '/echo', providerConfigKey: 'kh', connectionId: 'nobody' }),
    ).rejects.toMatchObject({ status: 404, code: 'connection_not_found' });
    const closed = `http://127.0.0.1:${await freePort()}`;
    await expect(
      client.proxy({
        endpoint: '/echo',
        providerConfigKey: 'kh',
        connectionId: 'c',
        baseUrlOverride: closed,
        retries: 1,
      }),
    ).rejects.toMatchObject({ status: 502, code: 'upstream_unreachable' });
    await expect(
      client.proxy({ endpoint: '/slow', providerConfigKey: 'kh', connectionId: 'c' }),
    ).rejects.toMatchObject({ status: 504, code: 'upstream_timeout' });
    const missingHeaders = await fetch(`${app.url}/proxy/echo`, {
      headers: { authorization: `Bearer ${app.devKey}` },
    });
    expect(missingHeaders.status).toBe(400);
  });

  it('refreshes an expired OAuth 2 token before proxying, and answers a refused refresh with 424', async () => {
    const oauth = await fakeOAuthIntegration(client, 'o2-refresh');
    try {
      const expired = new Date(Date.now() - 1000).toISOString();
      await client.importConnection({
        provider_config_key: 'o2-refresh',
        connection_id: 'c',
        access_token: 'stale',
        refresh_token: oauth.issueRefreshToken(),
        expires_at: expired,
      });
      const received = await echo('o2-refresh', { baseUrlOverride: `${upstream.url}/api` });
      const token = received.headers.authorization?.replace('Bearer ', '') ?? '';
      expect(oauth.isValidAccessToken(token)).toBe(true);

      await client.importConnection({
        provider_config_key: 'o2-refresh',
        connection_id: 'revoked',
        access_token: 'stale',
        refresh_token: 'revoked',
        expires_at: expired,
      });
      upstream.reset();
      await expect(
        echo('o2-refresh', { baseUrlOverride: `${upstream.url}/api`, connectionId: 'revoked' }),
      ).rejects.toMatchObject({ status: 424, code: 'refresh_token_external_error' });
      expect(upstream.received).toHaveLength(0);
    } finally {
      await oauth.stop();
    }
  });

  it('forwards JSON, multipart and streamed (chunked) bodies exactly as received', async () => {
    const json = await echo('kh', { method: 'POST', data: { name: 'ünïcode', list: [1, 2] } });
    expect(JSON.parse(json.body)).toEqual({ name: 'ünïcode', list: [1, 2] });
    expect(json.headers['content-type']).toMatch(/^application\/json/);

    const form = new FormData();
    form.append('field', 'value');
    form.append('file', new Blob([randomBytes(2048)]), 'data.bin');
    const multipart = new Request('http://local.invalid', { method: 'POST', body: form });
    const bytes = Buffer.from(await multipart.arrayBuffer());
    const contentType = multipart.headers.get('content-type') ?? '';
    const headers = {
      authorization: `Bearer ${app.devKey}`,
      'connection-id': 'c',
      'provider-config-key': 'kh',
    };
    await fetch(`${app.url}/proxy/echo`, {
      method: 'POST',
      headers: { ...headers, 'content-type': contentType },
      body: bytes,
    });
    const received = upstream.received.at(-1);
    expect(received?.headers['content-type']).toBe(contentType);
    expect(received?.body.equals(bytes)).toBe(true);

    const chunks = [randomBytes(1000), randomBytes(5000), randomBytes(3)];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    const streamed = await fetch(`${app.url}/proxy/echo`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/octet-stream' },
      body: stream,
      duplex: 'half',
    });
    expect(streamed.status).toBe(200);
    expect(upstream.received.at(-1)?.body.equals(Buffer.concat(chunks))).toBe(true);
  });

  it("answers with the caller's X-Request-Id, or a new one, on proxied and refused requests", async () => {
    const headers = {
      authorization: `Bearer ${app.devKey}`,
      'connection-id': 'c',
      'provider-config-key': 'kh',
    };
    const given = await fetch(`${app.url}/proxy/echo`, {
      headers: { ...headers, 'x-request-id': 'proxy-request-1' },
    });
    expect(given.status).toBe(200);
    expect(given.headers.get('x-request-id')).toBe('proxy-request-1');
    const generated = await fetch(`${app.url}/proxy/echo`, { headers });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await fetch(`${app.url}/proxy/echo`, {
      headers: { ...headers, 'connection-id': 'nobody', 'x-request-id': 'proxy-request-2' },
    });
    expect(refused.status).toBe(404);
    expect(refused.headers.get('x-request-id')).toBe('proxy-request-2');
    expect(refused.headers.get('x-junction-error')).toBe('true');
  });

  it('reads the upstream only as fast as the caller, and stops when the caller goes away', async () => {
    const chunk = Buffer.alloc(64 * 1024, 7);
    let written = 0;
    let closed: (() => void) | undefined;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    upstream.on('/endless', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.on('close', () => closed?.());
      const more = (): void => {
        while (!response.destroyed) {
          written += chunk.length;
          if (!response.write(chunk)) {
            response.once('drain', more);
            return;
          }
        }
      };
      more();
    });
    // node:http rather than fetch: destroying the request closes its socket there and then.
    const { hostname, port } = new URL(app.url);
    const caller = httpRequest({
      hostname,
      port,
      path: '/proxy/endless',
      headers: {
        authorization: `Bearer ${app.devKey}`,
        'connection-id': 'c',
        'provider-config-key': 'kh',
      },
    });
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      caller.once('response', resolve);
      caller.once('error', reject);
      caller.end();
    });
    expect(response.statusCode).toBe(200);
    await new Promise((resolve) => response.once('data', resolve));
    response.pause();
    // The caller stops reading: socket buffers fill and the upstream is paused, not drained.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const writtenWhilePaused = written;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(written).toBe(writtenWhilePaused);
    expect(written).toBeLessThan(64 * 1024 * 1024);
    caller.destroy();
    await upstreamClosed;
  });

  it('proxies HEAD, OPTIONS, PUT and DELETE as well', async () => {
    const headers = {
      authorization: `Bearer ${app.devKey}`,
      'connection-id': 'c',
      'provider-config-key': 'kh',
    };
    const head = await fetch(`${app.url}/proxy/binary`, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(upstream.binary.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    for (const method of ['OPTIONS', 'PUT', 'DELETE'] as const) {
      const response = await client.proxy<Echo>({
        method,
        endpoint: '/echo',
        providerConfigKey: 'kh',
        connectionId: 'c',
      });
      expect(response.data.method).toBe(method);
    }
  });
});

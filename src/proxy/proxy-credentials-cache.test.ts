import { ProxyCredentialsCache, type ProxyCredentials } from './proxy-credentials-cache';

function credentials(expiresInMs: number | undefined): ProxyCredentials {
  return {
    credentials: {
      type: 'OAUTH2',
      access_token: 'token',
      refresh_token: 'refresh',
      ...(expiresInMs === undefined
        ? {}
        : { expires_at: new Date(Date.now() + expiresInMs).toISOString() }),
      raw: {},
    },
    integration: { provider: { token_expiry_buffer_seconds: 60 } },
  } as unknown as ProxyCredentials;
}

describe('ProxyCredentialsCache', () => {
  it('serves repeated and concurrent reads from one load within its time', async () => {
    const cache = new ProxyCredentialsCache(1_000);
    const load = jest.fn(() => Promise.resolve(credentials(3_600_000)));
    await Promise.all([cache.get('k', load), cache.get('k', load), cache.get('k', load)]);
    await cache.get('k', load);
    expect(load).toHaveBeenCalledTimes(1);
    await cache.get('other', load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('never keeps a token that will be inside its refresh buffer during the cache time', async () => {
    const cache = new ProxyCredentialsCache(1_000);
    const load = jest.fn(() => Promise.resolve(credentials(60_500)));
    await cache.get('k', load);
    await cache.get('k', load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('does not keep failures, and a zero time disables it', async () => {
    const cache = new ProxyCredentialsCache(1_000);
    const failing = jest.fn(() => Promise.reject(new Error('refused')));
    await expect(cache.get('k', failing)).rejects.toThrow('refused');
    await expect(cache.get('k', failing)).rejects.toThrow('refused');
    expect(failing).toHaveBeenCalledTimes(2);

    const disabled = new ProxyCredentialsCache(0);
    const load = jest.fn(() => Promise.resolve(credentials(undefined)));
    await disabled.get('k', load);
    await disabled.get('k', load);
    expect(load).toHaveBeenCalledTimes(2);
  });
});

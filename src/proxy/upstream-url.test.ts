import { InvalidEndpointError, parseBaseUrl, upstreamTarget } from './upstream-url';

/** What a URL parser makes of the base and the endpoint joined, for comparison. */
function parsed(base: string, endpoint: string): { origin: string; path: string; href: string } {
  const baseUrl = new URL(base);
  const queryStart = endpoint.indexOf('?');
  const url = new URL(`${baseUrl.origin}${baseUrl.pathname.replace(/\/+$/, '')}/${endpoint}`);
  if (baseUrl.search && queryStart < 0) url.search = baseUrl.search;
  return { origin: url.origin, path: `${url.pathname}${url.search}`, href: url.href };
}

describe('upstreamTarget', () => {
  const bases = [
    'https://api.example.com',
    'https://api.example.com/',
    'http://127.0.0.1:8080/v2//',
    'https://api.example.com/base?api-version=3',
  ];
  const endpoints = [
    'users',
    'users/42/repos?per_page=100&page=2',
    'a/b:c@d/e~f_g-h.i',
    "search/(x)*+,;=!$&'",
    'items?filter=a%20b&sort=-created',
    'files/%2Fencoded%20slash',
    'query?redirect=/next?x=1',
    'with space/and"quote',
    'unicode/é?q=ü',
    "query?x=it's",
    'hash#fragment',
    'braces/{id}?a=<b>',
  ];

  it('builds what a URL parser builds, for endpoints taken verbatim and for those it encodes', () => {
    for (const base of bases) {
      for (const endpoint of endpoints) {
        expect({ base, endpoint, target: upstreamTarget(base, endpoint) }).toEqual({
          base,
          endpoint,
          target: parsed(base, endpoint),
        });
      }
    }
  });

  it('takes a parsed base, and adds credential parameters the endpoint does not set', () => {
    const base = parseBaseUrl('https://api.example.com/v1');
    expect(upstreamTarget(base, 'users?page=2', { api_key: 's3cret', page: '9' })).toEqual({
      origin: 'https://api.example.com',
      path: '/v1/users?page=2&api_key=s3cret',
      href: 'https://api.example.com/v1/users?page=2&api_key=s3cret',
    });
  });

  it('refuses endpoints that leave the host or climb out of the base path', () => {
    for (const endpoint of [
      'http://evil.example/x',
      '/evil.example/x',
      '%2F%2Fevil.example/x',
      'a/%2E%2E/%2E%2E/x',
      'a\\b',
      '%2e%2e/x',
      './x',
      'a/../../x',
      'https:%2F%2Fevil.example',
      'bad%zzescape',
      'line%0Abreak',
    ]) {
      expect(() => upstreamTarget('https://api.example.com/base', endpoint)).toThrow(
        InvalidEndpointError,
      );
    }
  });

  it('refuses base URLs that are not http or https', () => {
    expect(() => parseBaseUrl('ftp://files.example')).toThrow(InvalidEndpointError);
    expect(() => parseBaseUrl('not a url')).toThrow(InvalidEndpointError);
  });
});

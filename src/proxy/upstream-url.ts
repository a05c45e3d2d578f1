import { DomainError } from '../common/errors/domain-error';

export class InvalidEndpointError extends DomainError {
  constructor(reason: string) {
    super('invalid_endpoint', `The endpoint cannot be proxied: ${reason}`);
  }
}

/** A base URL checked to be http or https (the proxy keeps one per connection). */
export function parseBaseUrl(baseUrl: string): URL {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new InvalidEndpointError(`the base URL "${baseUrl}" is not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new InvalidEndpointError('the base URL must be http or https');
  return base;
}

/**
 * Joins the base URL and the caller's endpoint (path and query as received) and proves the
 * result stays on the base URL's origin: absolute URLs, `//host`, backslashes and encoded forms
 * of them are refused rather than followed.
 */
export function upstreamUrl(baseUrl: string | URL, endpointWithQuery: string): URL {
  const base = typeof baseUrl === 'string' ? parseBaseUrl(baseUrl) : baseUrl;
  const queryStart = endpointWithQuery.indexOf('?');
  const path = queryStart < 0 ? endpointWithQuery : endpointWithQuery.slice(0, queryStart);
  const query = queryStart < 0 ? '' : endpointWithQuery.slice(queryStart);
  let decoded = path;
  if (path.includes('%')) {
    try {
      decoded = decodeURIComponent(path);
    } catch {
      throw new InvalidEndpointError('the path has a malformed percent-encoding');
    }
  }
  for (const candidate of decoded === path ? [path] : [path, decoded]) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(candidate))
      throw new InvalidEndpointError('absolute URLs are not allowed, give a path');
    if (candidate.startsWith('/') || candidate.includes('\\'))
      throw new InvalidEndpointError('the path must not start with "//" or contain "\\"');
    if (/(^|\/)\.\.?(\/|$)/.test(candidate))
      throw new InvalidEndpointError('"." and ".." segments are not allowed');
    if (/[\u0000-\u001f]/.test(candidate))
      throw new InvalidEndpointError('control characters are not allowed');
  }
  const basePath = base.pathname.replace(/\/+$/, '');
  const target = new URL(`${base.origin}${basePath}/${path}${query}`);
  if (target.origin !== base.origin)
    throw new InvalidEndpointError("the request would leave the provider's host");
  if (base.search && !query) target.search = base.search;
  return target;
}

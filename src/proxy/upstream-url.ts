import { DomainError } from '../common/errors/domain-error';

export class InvalidEndpointError extends DomainError {
  constructor(reason: string) {
    super('invalid_endpoint', `The endpoint cannot be proxied: ${reason}`);
  }
}

/** A base URL checked to be http or https, in the parts a request is built from. */
export interface BaseUrl {
  readonly url: URL;
  readonly origin: string;
  /** The path without trailing slashes ('' for the root). */
  readonly path: string;
  readonly search: string;
}

/** Where a proxied request goes: the upstream's origin and the request target sent to it. */
export interface UpstreamTarget {
  readonly origin: string;
  /** Path and query, as written on the request line. */
  readonly path: string;
  readonly href: string;
}

export function parseBaseUrl(baseUrl: string): BaseUrl {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InvalidEndpointError(`the base URL "${baseUrl}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidEndpointError('the base URL must be http or https');
  return { url, origin: url.origin, path: url.pathname.replace(/\/+$/, ''), search: url.search };
}

/**
 * Characters a URL parser leaves as they are in a path, and in a query of an http(s) URL: an
 * endpoint made only of them is joined to the base as text. Anything else (spaces, quotes,
 * non-ASCII, `#`, ...) goes through the URL parser, which encodes it.
 */
const VERBATIM_PATH = /^[\w\-.~!$&'()*+,;=:@/%]*$/;
const VERBATIM_QUERY = /^[\w\-.~!$&()*+,;=:@/%?]*$/;

/**
 * Joins the base URL and the caller's endpoint (path and query as received), with `query`
 * (the provider's credential parameters) added where the endpoint does not set them, and proves
 * the result stays on the base URL's origin: absolute URLs, `//host`, backslashes, dot segments
 * and encoded forms of them are refused rather than followed.
 */
export function upstreamTarget(
  base: BaseUrl | string,
  endpointWithQuery: string,
  query: Readonly<Record<string, string>> = {},
): UpstreamTarget {
  const parsed = typeof base === 'string' ? parseBaseUrl(base) : base;
  const queryStart = endpointWithQuery.indexOf('?');
  const path = queryStart < 0 ? endpointWithQuery : endpointWithQuery.slice(0, queryStart);
  const search = queryStart < 0 ? '' : endpointWithQuery.slice(queryStart);
  checkPath(path);

  const addsQuery = Object.keys(query).length > 0;
  if (!addsQuery && VERBATIM_PATH.test(path) && VERBATIM_QUERY.test(search)) {
    // What the URL parser would produce, without parsing: the checks above leave no way to
    // another host, and none of these characters is encoded or interpreted.
    const target = `${parsed.path}/${path}${search || parsed.search}`;
    return { origin: parsed.origin, path: target, href: `${parsed.origin}${target}` };
  }

  const url = new URL(`${parsed.origin}${parsed.path}/${path}${search}`);
  if (url.origin !== parsed.origin)
    throw new InvalidEndpointError("the request would leave the provider's host");
  if (parsed.search && !search) url.search = parsed.search;
  for (const [name, value] of Object.entries(query)) {
    if (!url.searchParams.has(name)) url.searchParams.set(name, value);
  }
  return { origin: url.origin, path: `${url.pathname}${url.search}`, href: url.href };
}

function checkPath(path: string): void {
  checkPathText(path);
  if (!path.includes('%')) return;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw new InvalidEndpointError('the path has a malformed percent-encoding');
  }
  checkPathText(decoded);
}

function checkPathText(path: string): void {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path))
    throw new InvalidEndpointError('absolute URLs are not allowed, give a path');
  if (path.startsWith('/') || path.includes('\\'))
    throw new InvalidEndpointError('the path must not start with "//" or contain "\\"');
  if (/(^|\/)\.\.?(\/|$)/.test(path))
    throw new InvalidEndpointError('"." and ".." segments are not allowed');
  if (/[\u0000-\u001f]/.test(path))
    throw new InvalidEndpointError('control characters are not allowed');
}

import type { IncomingHttpHeaders } from 'node:http';
import { InvalidRequestError } from '../common/errors/domain-error';
import type { FieldError } from '../common/errors/error-codes';

/** Headers with these prefixes are forwarded upstream without the prefix (WIRE.md). */
const FORWARD_PREFIXES = ['nango-proxy-', 'junction-proxy-'];

/** Never forwarded: connection-level headers (RFC 9110 section 7.6.1) and the caller's own auth. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

export interface ProxyInstructions {
  readonly connectionId: string;
  readonly providerConfigKey: string;
  readonly retries: number;
  readonly retryOn: ReadonlySet<number>;
  readonly baseUrlOverride: string | undefined;
  readonly decompress: boolean;
  /** Headers for the upstream: the prefixed ones (prefix stripped) and the body's content headers. */
  readonly forwardHeaders: Record<string, string>;
}

function forwardPrefixLength(name: string): number {
  for (const prefix of FORWARD_PREFIXES) if (name.startsWith(prefix)) return prefix.length;
  return 0;
}

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  return text === undefined || text === '' ? undefined : text;
}

const NO_CODES: ReadonlySet<number> = new Set();

/** The status codes of a `Retry-On` list; what is not one becomes an error. */
function statusCodes(list: string, errors: FieldError[]): Set<number> {
  const codes = new Set<number>();
  for (const part of list.split(',')) {
    const code = part.trim();
    if (code === '') continue;
    if (/^\d{3}$/.test(code) && Number(code) >= 100 && Number(code) <= 599) codes.add(Number(code));
    else
      errors.push({
        path: 'Retry-On',
        message: `Retry-On holds "${code}", which is not an HTTP status code`,
      });
  }
  return codes;
}

/** Reads the proxy's own headers; every problem is listed in one 400. */
export function readProxyHeaders(
  headers: IncomingHttpHeaders,
  maxRetries: number,
): ProxyInstructions {
  const errors: FieldError[] = [];
  const connectionId = single(headers, 'connection-id');
  const providerConfigKey = single(headers, 'provider-config-key');
  if (!connectionId)
    errors.push({ path: 'Connection-Id', message: 'the Connection-Id header is required' });
  if (!providerConfigKey)
    errors.push({
      path: 'Provider-Config-Key',
      message: 'the Provider-Config-Key header is required',
    });

  const retriesText = single(headers, 'retries');
  const retries =
    retriesText === undefined
      ? 0
      : /^\d{1,3}$/.test(retriesText)
        ? Number(retriesText)
        : Number.NaN;
  if (!Number.isInteger(retries) || retries > maxRetries) {
    errors.push({
      path: 'Retries',
      message: `Retries must be a whole number from 0 to ${maxRetries}`,
    });
  }
  const retryOnText = single(headers, 'retry-on');
  const retryOn = retryOnText === undefined ? NO_CODES : statusCodes(retryOnText, errors);
  const baseUrlOverride = single(headers, 'base-url-override');
  if (baseUrlOverride !== undefined && !/^https?:\/\/[^/?#]+/i.test(baseUrlOverride)) {
    errors.push({
      path: 'Base-Url-Override',
      message: 'Base-Url-Override must be an http or https URL',
    });
  }
  const decompressText = single(headers, 'decompress')?.toLowerCase() ?? 'false';
  if (decompressText !== 'true' && decompressText !== 'false') {
    errors.push({ path: 'Decompress', message: 'Decompress must be true or false' });
  }
  if (errors.length > 0 || !connectionId || !providerConfigKey) {
    throw new InvalidRequestError(
      `Invalid proxy request: ${errors.map((error) => error.message).join('; ')}`,
      errors,
    );
  }

  const forwardHeaders: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const prefixLength = forwardPrefixLength(name);
    if (prefixLength > 0) {
      const stripped = name.slice(prefixLength);
      if (stripped !== '' && !HOP_BY_HOP.has(stripped))
        forwardHeaders[stripped] = Array.isArray(value) ? value.join(', ') : value;
    } else if (name === 'content-type' || name === 'content-encoding') {
      forwardHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return {
    connectionId,
    providerConfigKey,
    retries,
    retryOn,
    baseUrlOverride,
    decompress: decompressText === 'true',
    forwardHeaders,
  };
}

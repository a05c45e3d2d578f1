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
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
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

  const retriesText = single(headers, 'retries') ?? '0';
  const retries = /^\d{1,3}$/.test(retriesText) ? Number(retriesText) : Number.NaN;
  if (!Number.isInteger(retries) || retries > maxRetries) {
    errors.push({
      path: 'Retries',
      message: `Retries must be a whole number from 0 to ${maxRetries}`,
    });
  }
  const retryOn = new Set<number>();
  for (const part of (single(headers, 'retry-on') ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const code = /^\d{3}$/.test(part) ? Number(part) : Number.NaN;
    if (code >= 100 && code <= 599) retryOn.add(code);
    else
      errors.push({
        path: 'Retry-On',
        message: `Retry-On holds "${part}", which is not an HTTP status code`,
      });
  }
  const baseUrlOverride = single(headers, 'base-url-override');
  if (baseUrlOverride !== undefined && !/^https?:\/\/[^/?#]+/i.test(baseUrlOverride)) {
    errors.push({
      path: 'Base-Url-Override',
      message: 'Base-Url-Override must be an http or https URL',
    });
  }
  const decompressText = (single(headers, 'decompress') ?? 'false').toLowerCase();
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
    const text = Array.isArray(value) ? value.join(', ') : value;
    const prefixLength = forwardPrefixLength(name);
    if (prefixLength > 0) {
      const stripped = name.slice(prefixLength);
      if (stripped !== '' && !HOP_BY_HOP.has(stripped)) forwardHeaders[stripped] = text;
    } else if (name === 'content-type' || name === 'content-encoding') {
      forwardHeaders[name] = text;
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

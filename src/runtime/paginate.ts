import type { PaginateConfig, ProxyConfig } from '../scripts/sdk';
import type { ScriptProxyResponse } from './script-protocol';

/** Reads a dotted path (`meta.next_cursor`) from a JSON value; the value itself for an empty path. */
export function readPath(value: unknown, path: string | undefined): unknown {
  if (!path) return value;
  let current: unknown = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The target of `rel` in an RFC 8288 `Link` header, or undefined. */
export function linkTarget(header: string | string[] | undefined, rel: string): string | undefined {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return undefined;
  for (const part of text.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!match) continue;
    const rels = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(match[2] ?? '');
    if (rels && (rels[1] ?? '').split(/\s+/).includes(rel)) return match[1];
  }
  return undefined;
}

function itemsOf(data: unknown, path: string | undefined, endpoint: string): unknown[] {
  const items = readPath(data, path);
  if (!Array.isArray(items)) {
    throw new Error(
      `paginate(${endpoint}): ${path ? `"${path}" in the response` : 'the response body'} is not an array`,
    );
  }
  return items;
}

function withParams(config: ProxyConfig, extra: Record<string, string | number>): ProxyConfig {
  if (typeof config.params === 'string') {
    const params = new URLSearchParams(config.params);
    for (const [name, value] of Object.entries(extra)) params.set(name, String(value));
    return { ...config, params: params.toString() };
  }
  return { ...config, params: { ...config.params, ...extra } };
}

type Fetch = (config: ProxyConfig) => Promise<ScriptProxyResponse>;

/** Pages of items by cursor, link header (or body link) or offset, requested one after the other. */
export async function* paginate<T>(
  fetch: Fetch,
  config: PaginateConfig,
): AsyncGenerator<T[], void, undefined> {
  const { paginate: pagination, onPage, ...request } = config;
  const limitParams: Record<string, number> =
    pagination.limit !== undefined && pagination.limitNameInRequest
      ? { [pagination.limitNameInRequest]: pagination.limit }
      : {};
  let offset = pagination.type === 'offset' ? (pagination.offsetStart ?? 0) : 0;
  let next: ProxyConfig | undefined = withParams(
    request,
    pagination.type === 'offset'
      ? { ...limitParams, [pagination.offsetNameInRequest]: offset }
      : limitParams,
  );
  const seen = new Set<string>();
  while (next) {
    const key = JSON.stringify([next.endpoint, next.params, next.data]);
    if (seen.has(key))
      throw new Error(`paginate(${request.endpoint}): the next page repeats an earlier one`);
    seen.add(key);
    const response = await fetch(next);
    const items = itemsOf(response.data, pagination.responsePath, request.endpoint) as T[];
    let marker: string | number | null = null;
    next = undefined;
    if (pagination.type === 'cursor') {
      const cursor = readPath(response.data, pagination.cursorPathInResponse);
      if (typeof cursor === 'string' ? cursor.length > 0 : typeof cursor === 'number') {
        marker = cursor as string | number;
        next = withParams(request, { ...limitParams, [pagination.cursorNameInRequest]: marker });
      }
    } else if (pagination.type === 'link') {
      const target = pagination.linkPathInResponse
        ? readPath(response.data, pagination.linkPathInResponse)
        : linkTarget(response.headers.link, pagination.linkRel ?? 'next');
      if (typeof target === 'string' && target.length > 0) {
        marker = new URL(target, response.url).toString();
        next = { ...request, endpoint: marker, params: undefined };
      }
    } else if (items.length > 0 && items.length >= pagination.limit) {
      offset += pagination.offsetStep === 'page' ? 1 : items.length;
      marker = offset;
      next = withParams(request, { ...limitParams, [pagination.offsetNameInRequest]: offset });
    }
    if (items.length > 0) yield items;
    await onPage?.({ next: marker });
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { DomainError } from '../common/errors/domain-error';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { ConnectionsService } from '../connections/connections.service';
import { EnvironmentVariablesService } from '../environment-variables/environment-variables.service';
import { ProxyService } from '../proxy/proxy.service';
import type { ScriptProxyRequest, ScriptProxyResponse } from './script-protocol';
import type { ScriptHost } from './script-runner';

/** Which connection a script runs for. */
export interface ScriptTarget {
  readonly environmentId: number;
  readonly providerConfigKey: string;
  readonly connectionId: string;
}

/** Scripts get retries by default: a sync should not fail on one 503. */
const DEFAULT_SCRIPT_RETRIES = 3;
/** Largest response body a script receives (it is parsed in memory). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export class ScriptHttpError extends Error {
  readonly code = 'http_error';
  constructor(
    message: string,
    readonly response: {
      status: number;
      headers: Record<string, string | string[]>;
      data: unknown;
    },
  ) {
    super(message);
  }
}

function queryString(params: ScriptProxyRequest['params']): string {
  if (params === undefined) return '';
  if (typeof params === 'string') return params.replace(/^\?/, '');
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) search.set(name, String(value));
  return search.toString();
}

async function readBody(body: Readable | Buffer): Promise<Buffer> {
  if (Buffer.isBuffer(body)) {
    if (body.length > MAX_RESPONSE_BYTES)
      throw new Error(`The response is larger than ${MAX_RESPONSE_BYTES} bytes`);
    return body;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw new Error(`The response is larger than ${MAX_RESPONSE_BYTES} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function parseBody(buffer: Buffer, contentType: string): unknown {
  const text = buffer.toString('utf8');
  if (/\bjson\b/i.test(contentType) || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * The side effects every script may use, for one connection: HTTP through the proxy (same
 * credentials, refresh, retries and host checks), the connection, its metadata and the
 * environment variables.
 */
@Injectable()
export class ScriptServices {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsService,
    private readonly proxyService: ProxyService,
    private readonly variables: EnvironmentVariablesService,
  ) {}

  host(
    target: ScriptTarget,
  ): Pick<ScriptHost, 'proxy' | 'getConnection' | 'getMetadata' | 'getEnvironmentVariables'> {
    return {
      proxy: (request) => this.proxy(target, request),
      getConnection: async () =>
        this.connections.get(target.environmentId, target.providerConfigKey, target.connectionId, {
          forceRefresh: false,
          includeRefreshToken: false,
        }),
      getMetadata: async () =>
        (
          await this.connections.get(
            target.environmentId,
            target.providerConfigKey,
            target.connectionId,
            { forceRefresh: false, includeRefreshToken: false },
          )
        ).metadata ?? {},
      getEnvironmentVariables: () => this.variables.list(target.environmentId),
    };
  }

  private async proxy(
    target: ScriptTarget,
    request: ScriptProxyRequest,
  ): Promise<ScriptProxyResponse> {
    let endpoint = request.endpoint;
    let baseUrlOverride = request.baseUrlOverride;
    if (/^https?:\/\//i.test(endpoint)) {
      // A link to follow (pagination): allowed only under the connection's own base URL.
      const base =
        baseUrlOverride ??
        (await this.proxyService.baseUrl(
          target.environmentId,
          target.providerConfigKey,
          target.connectionId,
        ));
      const url = new URL(endpoint);
      if (url.origin !== new URL(base).origin) {
        throw new DomainError(
          'invalid_endpoint',
          `The endpoint ${url.origin} is not on the provider's host`,
        );
      }
      baseUrlOverride = url.origin;
      endpoint = `${url.pathname}${url.search}`;
    }
    const query = queryString(request.params);
    const path = endpoint.replace(/^\/+/, '');
    const fullEndpoint = query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path;
    const headers: Record<string, string> = {
      'connection-id': target.connectionId,
      'provider-config-key': target.providerConfigKey,
      decompress: 'true',
      retries: String(
        Math.min(request.retries ?? DEFAULT_SCRIPT_RETRIES, this.config.proxy.maxRetries),
      ),
    };
    if (request.retryOn?.length) headers['retry-on'] = request.retryOn.join(',');
    if (baseUrlOverride) headers['base-url-override'] = baseUrlOverride;
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      headers[`junction-proxy-${name.toLowerCase()}`] = String(value);
    }
    let body: Readable | undefined;
    if (request.data !== undefined && request.data !== null) {
      const text = typeof request.data === 'string' ? request.data : JSON.stringify(request.data);
      const contentType = Object.entries(request.headers ?? {}).find(
        ([name]) => name.toLowerCase() === 'content-type',
      )?.[1];
      headers['content-type'] = contentType ?? 'application/json';
      const buffer = Buffer.from(text, 'utf8');
      headers['content-length'] = String(buffer.length);
      body = Readable.from([buffer]);
    }
    const answer = await this.proxyService.forward({
      environmentId: target.environmentId,
      method: request.method,
      endpoint: fullEndpoint,
      headers,
      body,
    });
    const buffer = await readBody(answer.body);
    const contentType = String(answer.headers['content-type'] ?? '');
    const data = request.method === 'HEAD' ? '' : parseBody(buffer, contentType);
    const response = { status: answer.status, headers: answer.headers, data };
    if (answer.status >= 400) {
      throw new ScriptHttpError(
        `${request.method} ${endpoint} answered ${answer.status}${typeof data === 'string' && data ? `: ${data.slice(0, 200)}` : ''}`,
        response,
      );
    }
    return { ...response, url: answer.url };
  }
}

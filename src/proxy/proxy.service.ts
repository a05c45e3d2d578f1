import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import pRetry, { AbortError } from 'p-retry';
import { Agent, errors as undiciErrors } from 'undici';
import { DomainError } from '../common/errors/domain-error';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { ConnectionsService, type FreshConnection } from '../connections/connections.service';
import { interpolateUrl } from '../providers/interpolate';
import {
  type AttachedCredentials,
  credentialHeaders,
  oauth1Authorization,
} from './credential-headers';
import { readProxyHeaders, type ProxyInstructions } from './proxy-headers';
import { isRetriableStatus, requestedWaitMs } from './retry-policy';
import { callUpstream, type UpstreamResponse } from './upstream-call';
import { type BaseUrl, parseBaseUrl, type UpstreamTarget, upstreamTarget } from './upstream-url';

export interface ProxyCall {
  readonly environmentId: number;
  readonly method: string;
  /** Path and query after `/proxy/`, as received. */
  readonly endpoint: string;
  readonly headers: IncomingHttpHeaders;
  /** The request body as it arrives; undefined when there is none. */
  readonly body: Readable | undefined;
}

export interface UpstreamAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  /** Small bodies (a declared length up to SMALL_BODY_BYTES) arrive whole; others as a stream. */
  readonly body: Readable | Buffer;
  /** The upstream URL requested (for following relative links). */
  readonly url: string;
}

class RetriableStatus extends Error {
  constructor(readonly waitMs: number | undefined) {
    super('retriable upstream status');
  }
}

/** A request on its way upstream, before its body is known. */
interface Outgoing {
  readonly target: UpstreamTarget;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly instructions: ProxyInstructions;
  readonly fresh: FreshConnection;
}

interface Prepared {
  readonly provider: object;
  readonly connectionConfig: object;
  readonly attached: AttachedCredentials;
  base?: BaseUrl;
}

const NETWORK_TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * Up to this declared length a response body is read whole and sent as one buffer: piping a
 * stream through Fastify costs more CPU than the body's bytes for the small JSON most API calls
 * return. Larger bodies, and bodies of unknown length, stream.
 */
const SMALL_BODY_BYTES = 64 * 1024;

/**
 * Forwards a request to the provider's API with the connection's credentials: undici on the hot
 * path, bodies streamed both ways (buffered only when a retry or an OAuth 1 form signature needs
 * them), retries with exponential backoff and jitter.
 */
@Injectable()
export class ProxyService implements OnModuleDestroy {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 });

  /**
   * What a connection's requests attach (headers, query, base URL), kept per credentials object:
   * the connection cache hands out the same objects until the row changes, so the templates are
   * filled once per change, not once per request.
   */
  private readonly prepared = new WeakMap<object, Prepared>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsService,
  ) {}

  /**
   * Forwards one call. A connection whose credentials, integration and provider are all in
   * memory goes upstream without waiting on anything first (the usual case under load).
   */
  forward(call: ProxyCall): Promise<UpstreamAnswer> {
    const instructions = readProxyHeaders(call.headers, this.config.proxy.maxRetries);
    const { providerConfigKey, connectionId } = instructions;
    const cached = this.connections.freshCached(
      call.environmentId,
      providerConfigKey,
      connectionId,
    );
    if (cached) return this.forwardWith(call, instructions, cached);
    return this.connections
      .fresh(call.environmentId, providerConfigKey, connectionId)
      .then((fresh) => this.forwardWith(call, instructions, fresh));
  }

  private forwardWith(
    call: ProxyCall,
    instructions: ProxyInstructions,
    fresh: FreshConnection,
  ): Promise<UpstreamAnswer> {
    const prepared = this.prepare(fresh);
    const attached = prepared.attached;
    const target = upstreamTarget(
      instructions.baseUrlOverride ?? (prepared.base ??= parseBaseUrl(this.providerBase(fresh))),
      call.endpoint,
      attached.query,
    );
    const headers: Record<string, string> = { ...attached.headers, ...instructions.forwardHeaders };
    if (attached.headers.authorization !== undefined)
      headers.authorization = attached.headers.authorization;
    const outgoing: Outgoing = {
      target,
      method: call.method.toUpperCase(),
      headers,
      instructions,
      fresh,
    };
    const body = call.body && hasBody(call.headers) ? call.body : undefined;
    if (body === undefined) return this.send(outgoing, undefined);
    if (call.headers['content-length'] !== undefined)
      headers['content-length'] = String(call.headers['content-length']);
    const isForm = (headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    // A body sent more than once (retries), or signed (OAuth 1 forms), is read whole first.
    if (instructions.retries > 0 || (fresh.credentials.type === 'OAUTH1' && isForm))
      return this.buffer(body).then((whole) => this.send(outgoing, whole, isForm));
    return this.send(outgoing, body);
  }

  /** The provider's base URL for a connection (interpolated); a 400 when the provider has none. */
  async baseUrl(
    environmentId: number,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<string> {
    return this.providerBase(
      await this.connections.fresh(environmentId, providerConfigKey, connectionId),
    );
  }

  private prepare(fresh: FreshConnection): Prepared {
    const { credentials, integration, row } = fresh;
    const known = this.prepared.get(credentials);
    if (known?.provider === integration.provider && known.connectionConfig === row.connectionConfig)
      return known;
    const prepared: Prepared = {
      provider: integration.provider,
      connectionConfig: row.connectionConfig,
      attached: credentialHeaders(integration, credentials, row.connectionConfig),
    };
    this.prepared.set(credentials, prepared);
    return prepared;
  }

  private providerBase(fresh: FreshConnection): string {
    const baseTemplate = fresh.integration.provider.proxy?.base_url;
    if (!baseTemplate) {
      throw new DomainError(
        'missing_base_url',
        `Provider "${fresh.integration.provider.name}" has no proxy base URL: give the Base-Url-Override header`,
      );
    }
    return interpolateUrl(baseTemplate, { connectionConfig: fresh.row.connectionConfig });
  }

  private send(
    outgoing: Outgoing,
    body: Buffer | Readable | undefined,
    isForm = false,
  ): Promise<UpstreamAnswer> {
    const { target, method, headers, instructions, fresh } = outgoing;
    const signature = oauth1Authorization(
      fresh.integration,
      fresh.credentials,
      method,
      target.href,
      isForm && Buffer.isBuffer(body)
        ? Object.fromEntries(new URLSearchParams(body.toString('utf8')))
        : undefined,
    );
    if (signature) headers.authorization = signature;

    const timeout = this.config.proxy.timeoutMs;
    // undici dispatch with our own handler (upstream-call.ts): no URL re-parsing, response stream
    // or body mixin per call (hot path).
    const once = (): Promise<UpstreamResponse> =>
      callUpstream(
        this.agent,
        {
          origin: target.origin,
          path: target.path,
          method,
          headers,
          body,
          headersTimeout: timeout,
          bodyTimeout: timeout,
        },
        SMALL_BODY_BYTES,
      );
    const response =
      instructions.retries === 0
        ? once()
        : this.withRetries(
            once,
            instructions,
            !(body instanceof Readable),
            fresh.integration.provider.proxy?.rate_limit_reset_header,
          );
    return response.then(
      (answer) => this.answer(answer, instructions.decompress, target),
      (error: unknown) => {
        throw upstreamFailure(target, error);
      },
    );
  }

  private withRetries(
    once: () => Promise<UpstreamResponse>,
    instructions: ProxyInstructions,
    replayable: boolean,
    resetHeader: string | undefined,
  ): Promise<UpstreamResponse> {
    return pRetry(
      async (attempt) => {
        let response: UpstreamResponse;
        try {
          response = await once();
        } catch (error) {
          if (!replayable) throw new AbortError(error as Error);
          throw error;
        }
        const lastAttempt = attempt > instructions.retries;
        if (!lastAttempt && isRetriableStatus(response.status, instructions.retryOn)) {
          if (response.body instanceof Readable) response.body.destroy();
          throw new RetriableStatus(requestedWaitMs(response.headers, resetHeader));
        }
        return response;
      },
      {
        retries: instructions.retries,
        factor: 2,
        minTimeout: 100,
        maxTimeout: 5_000,
        randomize: true,
        onFailedAttempt: async (error) => {
          if (error instanceof RetriableStatus && error.waitMs !== undefined) {
            await sleep(Math.min(error.waitMs, this.config.proxy.maxRetryWaitMs));
          }
        },
      },
    );
  }

  private async buffer(body: Readable): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > this.config.proxy.maxReplayBodyBytes) {
        throw new DomainError(
          'payload_too_large',
          `A body replayed on retries may hold ${this.config.proxy.maxReplayBodyBytes} bytes; send larger bodies without Retries`,
        );
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  /** The upstream's answer as the caller gets it: decompressed when asked for. */
  private answer(
    response: UpstreamResponse,
    decompress: boolean,
    target: UpstreamTarget,
  ): UpstreamAnswer {
    const headers = response.headers;
    const encoding = String(headers['content-encoding'] ?? '').toLowerCase();
    const decoder = decompress ? decoderFor(encoding) : undefined;
    if (!decoder)
      return { status: response.status, headers, body: response.body, url: target.href };
    delete headers['content-encoding'];
    delete headers['content-length'];
    if (Buffer.isBuffer(response.body)) decoder.end(response.body);
    else response.body.pipe(decoder);
    return { status: response.status, headers, body: decoder, url: target.href };
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return (length !== undefined && length !== '0') || headers['transfer-encoding'] !== undefined;
}

function decoderFor(encoding: string) {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

function upstreamFailure(target: UpstreamTarget, error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const cause = error instanceof AbortError ? error.originalError : error;
  const code = (cause as { code?: string } | null)?.code ?? '';
  if (NETWORK_TIMEOUTS.has(code) || cause instanceof undiciErrors.HeadersTimeoutError) {
    return new DomainError('upstream_timeout', `${target.origin} did not answer in time`);
  }
  const reason =
    cause instanceof Error ? `${code ? `${code}: ` : ''}${cause.message}` : String(cause);
  return new DomainError(
    'upstream_unreachable',
    `${target.origin} could not be reached: ${reason}`,
  );
}

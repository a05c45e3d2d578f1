import { Logger } from '@nestjs/common';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { Logger as Pino } from 'pino';
import { authenticate, authenticateCached } from '../auth/auth.guard';
import type { SecretKeyResolver } from '../auth/secret-key-resolver';
import { errorResponse } from '../common/errors/http-error.filter';
import { requestIdOf } from '../common/logging/request-id';
import { logRequest } from '../common/logging/request-log';
import type { MetricsService } from '../metrics/metrics.service';
import type { ProxyService, UpstreamAnswer } from './proxy.service';
import { type PendingAnswer, ResponseBatch } from './response-batch';

export const PROXY_PREFIX = '/proxy/';
export const PROXY_ROUTE = `${PROXY_PREFIX}*`;
export const PROXY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const METHODS = new Set<string>(PROXY_METHODS);

export type ProxyRequestListener = (request: IncomingMessage, response: ServerResponse) => void;

export interface ProxyRouteDependencies {
  readonly proxy: ProxyService;
  readonly resolver: SecretKeyResolver;
  readonly requestLog: Pino;
  readonly metrics: MetricsService;
}

interface BatchedAnswer extends PendingAnswer {
  readonly request: IncomingMessage;
  readonly id: string;
  readonly startedAt: bigint;
}

/** Whether the HTTP server hands this request to the proxy rather than to Fastify. */
export function isProxyRequest(request: IncomingMessage): boolean {
  return request.url?.startsWith(PROXY_PREFIX) === true && METHODS.has(request.method ?? '');
}

/**
 * `/proxy/*` is served by Node's HTTP server directly, in front of Fastify and Nest: bodies must
 * reach the upstream byte for byte and as a stream (Nest's body parsers would re-encode them),
 * and the request pipeline every other route runs (routing, seven request hooks, the reply
 * object) cost as much CPU as the proxying itself. It keeps what that pipeline gives the other
 * routes: the same authentication, `X-Request-Id`, request log line, metrics and error envelope.
 */
export function proxyRequestListener(dependencies: ProxyRouteDependencies): ProxyRequestListener {
  const { proxy, resolver, requestLog, metrics } = dependencies;
  const logger = new Logger('Proxy');

  const finished = (
    request: IncomingMessage,
    id: string,
    status: number,
    startedAt: bigint,
  ): void => {
    const elapsedMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
    logRequest(
      requestLog,
      { id, method: request.method ?? '', url: request.url ?? '' },
      status,
      elapsedMs,
    );
    metrics.observeHttp(request.method ?? '', PROXY_ROUTE, status, elapsedMs / 1000);
  };

  const fail = (
    request: IncomingMessage,
    response: ServerResponse,
    id: string,
    startedAt: bigint,
    error: unknown,
  ): void => {
    const { status, envelope } = errorResponse(error, logger, {
      requestId: id,
      method: request.method,
      url: PROXY_ROUTE,
    });
    const body = JSON.stringify(envelope);
    response.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-request-id': id,
      'x-junction-error': 'true',
    });
    response.end(body);
    finished(request, id, status, startedAt);
  };

  const batch = new ResponseBatch<BatchedAnswer>({
    written: (answer) => finished(answer.request, answer.id, answer.status, answer.startedAt),
    refused: (answer, error) =>
      fail(answer.request, answer.response, answer.id, answer.startedAt, error),
  });

  const forward = (request: IncomingMessage, environmentId: number): Promise<UpstreamAnswer> =>
    proxy.forward({
      environmentId,
      method: request.method ?? 'GET',
      endpoint: (request.url ?? '').slice(PROXY_PREFIX.length),
      headers: request.headers,
      body: request,
    });

  const respond = (
    request: IncomingMessage,
    response: ServerResponse,
    id: string,
    startedAt: bigint,
    answer: UpstreamAnswer,
  ): void => {
    const headers: OutgoingHttpHeaders = answer.headers;
    headers['x-request-id'] ??= id;
    if (Buffer.isBuffer(answer.body)) {
      batch.end({
        request,
        response,
        id,
        startedAt,
        status: answer.status,
        headers,
        body: answer.body,
      });
      return;
    }
    try {
      response.writeHead(answer.status, headers);
    } catch (error) {
      answer.body.destroy(); // Node refused an upstream header: release the upstream call too
      throw error;
    }
    pipeline(answer.body, response, (error) => {
      // A stream cut off after the status line went out can only end the connection.
      if (error) logger.warn({ requestId: id, err: error.message }, 'Proxied body cut off');
      finished(request, id, answer.status, startedAt);
    });
  };

  /** Everything in memory (the usual case) goes upstream before this returns. */
  const serve = (request: IncomingMessage): Promise<UpstreamAnswer> => {
    const { authorization } = request.headers;
    const environment = authenticateCached(authorization, resolver);
    if (environment) return forward(request, environment.id);
    return authenticate(authorization, resolver).then((found) => forward(request, found.id));
  };

  return (request, response) => {
    const startedAt = process.hrtime.bigint();
    const id = requestIdOf(request);
    const failed = (error: unknown): void => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      fail(request, response, id, startedAt, error);
    };
    let answer: Promise<UpstreamAnswer>;
    try {
      answer = serve(request);
    } catch (error) {
      failed(error);
      return;
    }
    answer.then((upstream) => {
      try {
        respond(request, response, id, startedAt, upstream);
      } catch (error) {
        failed(error);
      }
    }, failed);
  };
}

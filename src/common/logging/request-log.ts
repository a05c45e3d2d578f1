import type { FastifyInstance } from 'fastify';
import type { Logger as Pino } from 'pino';

/** Paths not worth a line each: load balancers poll them. */
const QUIET_PATHS = new Set(['/health']);

export interface LoggedRequest {
  readonly id: string;
  readonly method: string;
  readonly url: string;
}

/**
 * One JSON line per answered request: the request id (also sent back as `X-Request-Id`),
 * method, URL, status and time taken. Headers are never logged (they carry keys and cookies).
 * 5xx answers are logged at error level.
 */
export function logRequest(
  logger: Pino,
  request: LoggedRequest,
  status: number,
  elapsedMs: number,
): void {
  if (QUIET_PATHS.has(request.url) || !logger.isLevelEnabled(status >= 500 ? 'error' : 'info'))
    return;
  const line = { req: request, res: { statusCode: status }, responseTime: Math.round(elapsedMs) };
  const message = `${request.method} ${request.url} ${status}`;
  if (status >= 500) logger.error(line, message);
  else logger.info(line, message);
}

/**
 * Request lines for the routes Fastify serves, from its `onResponse` hook rather than
 * per-request child loggers bound through AsyncLocalStorage: that cost a tenth of the CPU of a
 * proxied request. Lines a service writes while serving a request do not carry its id; error
 * lines of the error filter do.
 */
export function installRequestLog(fastify: FastifyInstance, logger: Pino): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    logRequest(
      logger,
      { id: request.id, method: request.method, url: request.url },
      reply.statusCode,
      reply.elapsedTime,
    );
    done();
  });
}

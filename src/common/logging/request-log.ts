import type { FastifyInstance } from 'fastify';
import type { Logger as Pino } from 'pino';

/** Paths not worth a line each: load balancers poll them. */
const QUIET_PATHS = new Set(['/health']);

/**
 * One JSON line per answered request, written from Fastify's `onResponse` hook: the request id
 * (also sent back as `X-Request-Id`), method, URL, status and time taken. Headers are never
 * logged (they carry keys and cookies). 5xx answers are logged at error level.
 *
 * A hook rather than per-request child loggers bound through AsyncLocalStorage: that cost a
 * tenth of the CPU of a proxied request. Lines a service writes while serving a request do not
 * carry its id; error lines of the error filter do.
 */
export function installRequestLog(fastify: FastifyInstance, logger: Pino): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const url = request.url;
    const status = reply.statusCode;
    if (!QUIET_PATHS.has(url) && logger.isLevelEnabled(status >= 500 ? 'error' : 'info')) {
      const line = {
        req: { id: request.id, method: request.method, url },
        res: { statusCode: status },
        responseTime: Math.round(reply.elapsedTime),
      };
      const message = `${request.method} ${url} ${status}`;
      if (status >= 500) logger.error(line, message);
      else logger.info(line, message);
    }
    done();
  });
}

import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from '../auth/auth.guard';
import type { SecretKeyResolver } from '../auth/secret-key-resolver';
import { errorResponse } from '../common/errors/http-error.filter';
import type { ProxyService } from './proxy.service';

const PREFIX = '/proxy/';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/**
 * `/proxy/*` is served by Fastify directly rather than a Nest controller: request bodies must
 * reach the upstream byte for byte and as a stream, which Nest's global body parsers would
 * prevent; it authenticates with the same resolver and answers errors in the same envelope.
 */
export function proxyRoutes(proxy: ProxyService, resolver: SecretKeyResolver) {
  const logger = new Logger('Proxy');
  return (instance: FastifyInstance, _options: unknown, done: () => void): void => {
    // In this encapsulated context every body stays unread: the handler streams `request.raw`.
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

    instance.route({
      method: [...METHODS],
      url: `${PREFIX}*`,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        try {
          const environment = await authenticate(request.headers.authorization, resolver);
          const answer = await proxy.forward({
            environmentId: environment.id,
            method: request.method,
            endpoint: request.url.slice(PREFIX.length),
            headers: request.headers,
            body: request.raw,
          });
          void reply.code(answer.status).headers(answer.headers);
          return reply.send(answer.body);
        } catch (error) {
          const { status, envelope } = errorResponse(error, logger, {
            requestId: request.id,
            method: request.method,
            url: '/proxy/*',
          });
          return reply.code(status).header('x-junction-error', 'true').send(envelope);
        }
      },
    });
    done();
  };
}

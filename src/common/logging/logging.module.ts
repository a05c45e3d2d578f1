import { type DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppConfig } from '../../config/app-config';
import { requestIdOf } from './request-id';

/** Secrets are cut from every log line, wherever they appear in a logged request. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

@Module({})
export class LoggingModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRoot({
          // nestjs-pino's default route pattern never matches under the Fastify adapter of NestJS 12.
          forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
          pinoHttp: {
            level: config.log.level,
            genReqId: (request: IncomingMessage) => requestIdOf(request),
            redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
            autoLogging: { ignore: (request: IncomingMessage) => request.url === '/health' },
            customSuccessMessage: (request: IncomingMessage, response: ServerResponse) =>
              `${request.method ?? ''} ${request.url ?? ''} ${response.statusCode}`,
            // Headers stay out of request lines (they carry keys and cookies, and cost a copy each).
            serializers: {
              req: (request: { id: unknown; method: unknown; url: unknown }) => ({
                id: request.id,
                method: request.method,
                url: request.url,
              }),
              res: (response: { statusCode: unknown }) => ({ statusCode: response.statusCode }),
            },
            transport: config.log.pretty ? { target: 'pino-pretty' } : undefined,
          },
        }),
      ],
    };
  }
}

import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import { createServer } from 'node:http';
import { HttpErrorFilter } from '../common/errors/http-error.filter';
import { AppLogger } from '../common/logging/app-logger';
import { installRequestLog } from '../common/logging/request-log';
import { requestIdOf } from '../common/logging/request-id';
import { createValidationPipe } from '../common/validation/validation.pipe';
import { SecretKeyResolver } from '../auth/secret-key-resolver';
import { MetricsService } from '../metrics/metrics.service';
import {
  isProxyRequest,
  PROXY_METHODS,
  PROXY_ROUTE,
  proxyRequestListener,
  type ProxyRequestListener,
} from '../proxy/proxy.route';
import { ProxyService } from '../proxy/proxy.service';
import { DEPLOY_BODY_LIMIT_BYTES } from '../scripts/scripts.controller';
import { AppModule, type AppShape } from './app.module';

export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
}

export interface HttpApplication {
  readonly app: NestFastifyApplication;
  /** Every route Fastify registered, docs included; the auth test walks this list. */
  readonly routes: readonly RegisteredRoute[];
}

/** Builds the HTTP application (not yet listening) with its error envelope, validation, docs and metrics. */
export async function createHttpApplication(shape: AppShape): Promise<HttpApplication> {
  // Filled once the application is built; until then every request goes to Fastify.
  const proxy: { listener?: ProxyRequestListener } = {};
  const adapter = new FastifyAdapter({
    bodyLimit: shape.config.http.bodyLimitBytes,
    genReqId: requestIdOf,
    // The API sits behind a load balancer in production; client addresses come from it.
    trustProxy: true,
    serverFactory: proxyFirstServer(() => proxy.listener),
  });
  const routes: RegisteredRoute[] = PROXY_METHODS.map((method) => ({ method, url: PROXY_ROUTE }));
  const fastify: FastifyInstance = adapter.getInstance();
  fastify.addHook('onRoute', (route) => {
    if (route.url === '/scripts/deploy') {
      route.bodyLimit = Math.max(shape.config.http.bodyLimitBytes, DEPLOY_BODY_LIMIT_BYTES);
    }
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method: String(method), url: route.url });
  });

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(shape), adapter, {
    bufferLogs: true,
    abortOnError: false,
  });
  const logger = app.get(AppLogger);
  app.useLogger(logger);
  installRequestLog(fastify, logger.requests);
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  installHooks(fastify, app.get(MetricsService));
  installDocs(app);
  await app.init();
  proxy.listener = proxyRequestListener({
    proxy: app.get(ProxyService),
    resolver: app.get(SecretKeyResolver),
    requestLog: logger.requests,
    metrics: app.get(MetricsService),
  });
  return { app, routes };
}

/**
 * Node's HTTP server with Fastify's timeouts, handing `/proxy/*` to the proxy (once the
 * application is built) and everything else to Fastify.
 */
function proxyFirstServer(proxy: () => ProxyRequestListener | undefined): FastifyServerFactory {
  return (fastifyHandler, fastifyOptions) => {
    const options = fastifyOptions as {
      keepAliveTimeout?: number;
      requestTimeout?: number;
      connectionTimeout?: number;
    };
    const server = createServer((request, response) => {
      const listener = proxy();
      if (listener && isProxyRequest(request)) listener(request, response);
      else fastifyHandler(request, response);
    });
    server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
    server.requestTimeout = options.requestTimeout ?? 0;
    server.setTimeout(options.connectionTimeout ?? 0);
    return server;
  };
}

function installHooks(fastify: FastifyInstance, metrics: MetricsService): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observeHttp(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

function installDocs(app: NestFastifyApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Junction')
      .setDescription('Credentials, proxy, syncs and actions for third-party APIs')
      .setVersion('0.1.0')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Environment secret key' })
      .addSecurityRequirements('bearer')
      .build(),
  );
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
  });
}

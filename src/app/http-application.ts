import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';
import { HttpErrorFilter } from '../common/errors/http-error.filter';
import { AppLogger } from '../common/logging/app-logger';
import { installRequestLog } from '../common/logging/request-log';
import { requestIdOf } from '../common/logging/request-id';
import { createValidationPipe } from '../common/validation/validation.pipe';
import { SecretKeyResolver } from '../auth/secret-key-resolver';
import { MetricsService } from '../metrics/metrics.service';
import { proxyRoutes } from '../proxy/proxy.route';
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
  const adapter = new FastifyAdapter({
    bodyLimit: shape.config.http.bodyLimitBytes,
    genReqId: requestIdOf,
    // The API sits behind a load balancer in production; client addresses come from it.
    trustProxy: true,
  });
  const routes: RegisteredRoute[] = [];
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
  installRequestLog(fastify, logger.pino);
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  installHooks(fastify, app.get(MetricsService));
  installDocs(app);
  await fastify.register(proxyRoutes(app.get(ProxyService), app.get(SecretKeyResolver)));
  await app.init();
  return { app, routes };
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

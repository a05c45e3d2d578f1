import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { migrateUnderLock } from '../database/schema-migrator';
import type { CreatedKey } from '../environments/environments.service';
import { EnvironmentsService } from '../environments/environments.service';
import { startMetricsServer, type MetricsServer } from '../metrics/metrics-server';
import { MetricsService } from '../metrics/metrics.service';
import { ScheduleReconcilerService } from '../syncs/schedule-reconciler.service';
import { TemporalWorkerService } from '../temporal/temporal-worker.service';
import { AppLogger } from '../common/logging/app-logger';
import { AppModule, type AppShape } from './app.module';
import { createHttpApplication, type RegisteredRoute } from './http-application';
import { existsSync } from 'node:fs';
import { claimDataDir, devKeyFile, writeDevKeyFile } from './local-files';
import { prepareRuntime, type Runtime } from './runtime';

export interface RunningService {
  readonly context: INestApplicationContext;
  readonly apiUrl?: string;
  readonly metricsUrl: string;
  readonly temporalUiUrl?: string;
  readonly createdKeys: readonly CreatedKey[];
  /** Routes of the HTTP server (empty for a worker). */
  readonly routes: readonly RegisteredRoute[];
  /** Local mode: the file holding the dev environment's key, when Junction generated it. */
  readonly devKeyPath?: string;
  stop(): Promise<void>;
}

/** Starts one process in the given mode: migrate, seed, start the worker, listen. */
export async function startService(config: AppConfig): Promise<RunningService> {
  const http = config.mode !== 'worker';
  const worker = config.mode !== 'api';
  const releaseDataDir = config.database.url ? undefined : await claimDataDir(config.dataDir);
  let runtime: Runtime | undefined;
  let context: INestApplicationContext | undefined;
  let metricsServer: MetricsServer | undefined;
  try {
    runtime = await prepareRuntime(config);
    const shape: AppShape = {
      config,
      http,
      worker,
      databaseUrl: runtime.databaseUrl,
      embeddedDatabase: runtime.embeddedDatabase,
      temporalAddress: runtime.temporalAddress,
      encryptionKeys: runtime.encryptionKeys,
    };
    const httpApplication = http ? await createHttpApplication(shape) : undefined;
    context =
      httpApplication?.app ??
      (await NestFactory.createApplicationContext(AppModule.forRoot(shape), {
        bufferLogs: true,
        abortOnError: false,
      }));
    if (!httpApplication) context.useLogger(context.get(AppLogger));

    const environments = context.get(EnvironmentsService);
    let createdKeys: CreatedKey[] = [];
    await migrateUnderLock(context.get<DataSource>(getDataSourceToken()), async () => {
      if (http) createdKeys = await environments.ensureEnvironments(config.initialSecretKeys);
    });
    const devKeyPath = config.mode === 'local' ? await keepDevKey(config, createdKeys) : undefined;
    if (worker) {
      await context.get(TemporalWorkerService).start();
      context.get(ScheduleReconcilerService).start();
    }
    let apiUrl: string | undefined;
    if (httpApplication) {
      await httpApplication.app.listen({ host: config.http.host, port: config.http.port });
      apiUrl =
        config.http.publicUrl ?? (await httpApplication.app.getUrl()).replace('[::1]', 'localhost');
    }
    metricsServer = await startMetricsServer(
      context.get(MetricsService),
      config.metrics.host,
      config.metrics.port,
    );

    const started = { context, runtime, metricsServer };
    return {
      context,
      apiUrl,
      metricsUrl: metricsServer.url,
      temporalUiUrl: runtime.temporalUiUrl,
      createdKeys,
      routes: httpApplication?.routes ?? [],
      devKeyPath,
      stop: async () => {
        await started.metricsServer.close();
        // Closes the HTTP server (in-flight requests finish) and drains the worker.
        await started.context.close();
        await started.runtime.close();
        await releaseDataDir?.();
      },
    };
  } catch (error) {
    new Logger('Startup').error({ err: error }, 'Start-up failed');
    await metricsServer?.close().catch(() => undefined);
    await context?.close().catch(() => undefined);
    await runtime?.close().catch(() => undefined);
    await releaseDataDir?.();
    throw error;
  }
}

async function keepDevKey(
  config: AppConfig,
  createdKeys: readonly CreatedKey[],
): Promise<string | undefined> {
  const created = createdKeys.find((key) => key.environment === 'dev' && key.generated);
  if (created) return writeDevKeyFile(config.dataDir, created.secretKey);
  const path = devKeyFile(config.dataDir);
  return existsSync(path) ? path : undefined;
}

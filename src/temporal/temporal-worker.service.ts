import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createActivities } from '../../activities';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { EnvironmentsRepository } from '../environments/environments.repository';
import { ActionRunnerService } from '../actions/action-runner.service';
import { SyncRunnerService } from '../syncs/sync-runner.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import { installTemporalRuntime } from './temporal-logger';
import { TEMPORAL_OPTIONS, type TemporalModuleOptions } from './temporal.options';

/** Production builds prebundle the workflows (`npm run build`); from source they are bundled at start. */
const PREBUILT_BUNDLE = join(__dirname, '..', '..', 'workflow-bundle.js');
const WORKFLOWS_SOURCE = join(__dirname, '..', '..', 'workflows');

/**
 * The Temporal worker of this process: polls the task queue, runs workflows from the bundle and
 * activities built from the same NestJS services the API uses.
 */
@Injectable()
export class TemporalWorkerService implements OnApplicationShutdown {
  private readonly logger = new Logger('TemporalWorker');
  private worker: Worker | undefined;
  private running: Promise<void> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(TEMPORAL_OPTIONS) private readonly temporal: TemporalModuleOptions,
    private readonly environments: EnvironmentsRepository,
    private readonly syncRunner: SyncRunnerService,
    private readonly webhooks: WebhooksService,
    private readonly actionRunner: ActionRunnerService,
  ) {}

  async start(): Promise<void> {
    installTemporalRuntime();
    const connection = await NativeConnection.connect({ address: this.temporal.address });
    const workflowSource = existsSync(PREBUILT_BUNDLE)
      ? { workflowBundle: { codePath: PREBUILT_BUNDLE } }
      : { workflowsPath: WORKFLOWS_SOURCE };
    this.worker = await Worker.create({
      connection,
      namespace: this.temporal.namespace,
      taskQueue: this.temporal.taskQueue,
      ...workflowSource,
      activities: createActivities({
        environments: this.environments,
        syncRunner: this.syncRunner,
        webhooks: this.webhooks,
        actionRunner: this.actionRunner,
      }),
      maxConcurrentActivityTaskExecutions: this.config.worker.maxConcurrentActivities,
      shutdownGraceTime: this.config.worker.shutdownGraceMs,
    });
    const worker = this.worker;
    this.running = worker.run().finally(() => connection.close());
    this.running.catch((error: unknown) => {
      this.logger.error({ err: error }, 'The Temporal worker stopped with an error');
    });
    this.actionRunner.warm();
    this.logger.log(`Worker polling task queue ${this.temporal.taskQueue}`);
  }

  /** Stops polling, lets in-flight tasks finish (up to the grace time), then returns. */
  async onApplicationShutdown(): Promise<void> {
    if (!this.worker || !this.running) return;
    if (this.worker.getState() === 'RUNNING') this.worker.shutdown();
    await this.running.catch(() => undefined);
    this.logger.log('Worker drained and stopped');
  }
}

import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Client, type Connection } from '@temporalio/client';
import { QuietConnection } from './quiet-connection';
import { TEMPORAL_OPTIONS, type TemporalModuleOptions } from './temporal.options';

/**
 * The Temporal client of this process. The connection is lazy so the API starts (and reports
 * not-ready) while Temporal is down, and recovers by itself when Temporal comes back.
 */
@Injectable()
export class TemporalClientService implements OnApplicationShutdown {
  readonly connection: Connection;
  readonly client: Client;

  constructor(@Inject(TEMPORAL_OPTIONS) readonly options: TemporalModuleOptions) {
    this.connection = QuietConnection.lazy({ address: options.address });
    this.client = new Client({ connection: this.connection, namespace: options.namespace });
  }

  get taskQueue(): string {
    return this.options.taskQueue;
  }

  /** Resolves when the frontend answers a health check within the timeout. */
  async checkHealth(timeoutMs: number): Promise<void> {
    await this.connection.withDeadline(Date.now() + timeoutMs, () =>
      this.connection.workflowService.getSystemInfo({}),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.connection.close();
  }
}

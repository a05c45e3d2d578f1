import { Injectable, Logger } from '@nestjs/common';

export interface ConnectionEvent {
  readonly environmentId: number;
  readonly connectionRowId: number;
}

/** What other domains do when connections come and go (schedules, running syncs). */
export interface ConnectionLifecycleListener {
  connectionCreated?(event: ConnectionEvent): Promise<void>;
  /** Before the row (and with it its records and sync state) is deleted. */
  connectionDeleting?(event: ConnectionEvent): Promise<void>;
}

/**
 * Lets later domains react to connection changes without the connections domain depending on
 * them. A listener that fails is logged and does not undo the change: the schedule reconciler
 * repairs whatever a failed listener left behind.
 */
@Injectable()
export class ConnectionLifecycle {
  private readonly logger = new Logger('ConnectionLifecycle');
  private readonly listeners: ConnectionLifecycleListener[] = [];

  register(listener: ConnectionLifecycleListener): void {
    this.listeners.push(listener);
  }

  async created(event: ConnectionEvent): Promise<void> {
    for (const listener of this.listeners) {
      await listener.connectionCreated?.(event).catch((error: unknown) => {
        this.logger.warn({ err: error, ...event }, 'A listener of new connections failed');
      });
    }
  }

  async deleting(event: ConnectionEvent): Promise<void> {
    for (const listener of this.listeners) {
      await listener.connectionDeleting?.(event).catch((error: unknown) => {
        this.logger.warn({ err: error, ...event }, 'A listener of deleted connections failed');
      });
    }
  }
}

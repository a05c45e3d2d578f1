import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Client } from 'pg';

/** The channel the change triggers of the `ChangeNotifications` migration notify on. */
export const CHANGES_CHANNEL = 'junction_changes';

export type ChangeKind = 'connection' | 'integration';

/** A row that changed, or `reset`: changes may have been missed, forget everything. */
export type Change =
  { readonly kind: ChangeKind; readonly id: number } | { readonly kind: 'reset' };

type Subscriber = (change: Change) => void;

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 30_000;

/** How the feed learns about changes made outside this process. */
export type ChangeSource =
  /** `LISTEN` on a dedicated connection to this PostgreSQL server. */
  | { readonly listen: string }
  /** The embedded database belongs to this process alone: its own announcements are all there is. */
  | { readonly embedded: true };

/**
 * Tells in-process caches which connections and integrations changed. Changes made by this
 * process are announced synchronously by the code that made them (`announce`), so a process
 * reads its own writes at once; changes made by other processes arrive through PostgreSQL
 * `LISTEN`, within a round trip of their commit. While the listening connection is down the
 * feed is not `live` and caches must not serve from memory; when it comes back, subscribers
 * get a `reset`, since notifications sent meanwhile are lost.
 */
@Injectable()
export class ChangeFeed implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ChangeFeed');
  private readonly subscribers = new Set<Subscriber>();
  private listener: Client | undefined;
  private reconnectMs = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private isLive: boolean;

  constructor(private readonly source: ChangeSource) {
    this.isLive = 'embedded' in source;
  }

  /** True while every change, local or not, reaches the subscribers. */
  get live(): boolean {
    return this.isLive;
  }

  subscribe(subscriber: Subscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  /** Announces a change this process made (after it committed, or before it is visible). */
  announce(kind: ChangeKind, id: number): void {
    this.publish({ kind, id });
  }

  async onApplicationBootstrap(): Promise<void> {
    if ('listen' in this.source) await this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.isLive = false;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  private publish(change: Change): void {
    for (const subscriber of this.subscribers) subscriber(change);
  }

  private async connect(): Promise<void> {
    if (!('listen' in this.source) || this.stopped) return;
    const client = new Client({
      connectionString: this.source.listen,
      application_name: 'junction-changes',
      keepAlive: true,
    });
    client.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL && message.payload) this.received(message.payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, undefined));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      this.lost(client, error as Error);
      return;
    }
    this.listener = client;
    this.reconnectMs = RECONNECT_MIN_MS;
    // Anything cached before this point may have missed a notification.
    this.publish({ kind: 'reset' });
    this.isLive = true;
  }

  private received(payload: string): void {
    const separator = payload.indexOf(':');
    const kind = payload.slice(0, separator);
    const id = Number(payload.slice(separator + 1));
    if ((kind === 'connection' || kind === 'integration') && Number.isSafeInteger(id)) {
      this.publish({ kind, id });
    } else {
      this.logger.warn({ payload }, 'Ignoring a change notification of unknown form');
    }
  }

  private lost(client: Client, error: Error | undefined): void {
    if (this.listener !== client && this.listener !== undefined) return;
    const wasLive = this.isLive;
    this.isLive = false;
    this.listener = undefined;
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    if (this.stopped || this.reconnectTimer) return;
    if (wasLive) {
      this.publish({ kind: 'reset' });
      this.logger.warn(
        { error: error?.message },
        'Lost the change notification connection; caches bypassed until it is back',
      );
    }
    const delay = this.reconnectMs;
    this.reconnectMs = Math.min(this.reconnectMs * 2, RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }
}

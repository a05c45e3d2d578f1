import { LRUCache } from 'lru-cache';
import type { ChangeFeed } from '../database/change-feed';
import type { ConnectionRow } from './connections.repository';
import type { StoredCredentials } from './credentials';

/** A connection as read from the database, with its credentials already decrypted. */
export interface CachedConnection {
  readonly row: ConnectionRow;
  readonly credentials: StoredCredentials;
}

/**
 * An upper bound on how long an entry is served even if no change notification came: a safety
 * net against a listening connection that died without anyone noticing, not the way entries go
 * stale (they are dropped on change).
 */
export const CONNECTION_CACHE_MAX_AGE_MS = 60_000;

const keyOf = (environmentId: number, providerConfigKey: string, connectionId: string): string =>
  `${environmentId}\u0000${providerConfigKey}\u0000${connectionId}`;

/**
 * The connections this process read recently, so the read behind `getConnection` and every
 * proxied request costs no query. Entries are dropped when the `ChangeFeed` reports a change of
 * the connection or its integration (this process's own writes at once, other processes' within
 * a notification round trip), and nothing is served while the feed is not live.
 *
 * A read that raced with a change must not put the old row back: `generation` moves on every
 * change, and a row read before the latest change is not remembered.
 */
export class ConnectionCache {
  private readonly entries: LRUCache<string, CachedConnection> | undefined;
  /** Row id → key, to drop an entry named by a notification. */
  private readonly keysById = new Map<number, string>();
  private changes = 0;

  constructor(
    private readonly feed: ChangeFeed,
    maxEntries: number,
  ) {
    if (maxEntries <= 0) return;
    this.entries = new LRUCache<string, CachedConnection>({
      max: maxEntries,
      ttl: CONNECTION_CACHE_MAX_AGE_MS,
      dispose: (value, key) => {
        if (this.keysById.get(value.row.id) === key) this.keysById.delete(value.row.id);
      },
    });
    feed.subscribe((change) => {
      this.changes += 1;
      if (change.kind === 'reset') {
        this.entries?.clear();
      } else if (change.kind === 'connection') {
        const key = this.keysById.get(change.id);
        if (key !== undefined) this.entries?.delete(key);
      } else {
        for (const [key, value] of this.entries?.entries() ?? []) {
          if (value.row.integrationId === change.id) this.entries?.delete(key);
        }
      }
    });
  }

  /** A marker to take before reading the database, for `remember`. */
  get generation(): number {
    return this.changes;
  }

  get(
    environmentId: number,
    providerConfigKey: string,
    connectionId: string,
  ): CachedConnection | undefined {
    if (!this.entries || !this.feed.live) return undefined;
    return this.entries.get(keyOf(environmentId, providerConfigKey, connectionId));
  }

  /** Keeps what was read, unless something changed since `generation` was taken. */
  remember(
    providerConfigKey: string,
    connectionId: string,
    value: CachedConnection,
    generation: number,
  ): void {
    if (!this.entries || !this.feed.live || generation !== this.changes) return;
    const key = keyOf(value.row.environmentId, providerConfigKey, connectionId);
    this.entries.set(key, Object.freeze(value));
    this.keysById.set(value.row.id, key);
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }
}

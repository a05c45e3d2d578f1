import type { ConnectionsService } from '../connections/connections.service';
import { needsRefresh } from '../connections/credentials';

export type ProxyCredentials = Awaited<ReturnType<ConnectionsService['fresh']>>;

interface Entry {
  readonly value: Promise<ProxyCredentials>;
  expiresAt: number;
}

/**
 * Keeps a connection's usable credentials for a short time, so a burst of proxied requests
 * costs one database read instead of one each. Only credentials that stay valid beyond the
 * cache time (outside the refresh buffer) are kept, so a cached token never needs a refresh;
 * a change made through another API process is seen within `ttlMs`.
 */
export class ProxyCredentialsCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<ProxyCredentials>): Promise<ProxyCredentials> {
    if (this.ttlMs <= 0) return load();
    const now = Date.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) return cached.value;

    if (this.entries.size >= this.maxEntries) this.entries.clear();
    // Concurrent misses share one read.
    const entry: Entry = { value: load(), expiresAt: now + this.ttlMs };
    this.entries.set(key, entry);
    try {
      const value = await entry.value;
      if (!this.cacheable(value, now)) this.entries.delete(key);
      return value;
    } catch (error) {
      this.entries.delete(key);
      throw error;
    }
  }

  /** Kept only while no refresh can fall due: a cached token never needs refreshing. */
  private cacheable(value: ProxyCredentials, now: number): boolean {
    return !needsRefresh(value.credentials, value.integration.provider, now + this.ttlMs);
  }
}

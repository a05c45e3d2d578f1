import { Injectable } from '@nestjs/common';
import { EnvironmentsRepository } from '../environments/environments.repository';
import { hashSecretKey } from '../environments/secret-keys';
import type { AuthenticatedEnvironment } from './caller-environment.decorator';

/** How long a key's environment is remembered; a rotated key stops working within this time. */
export const KEY_CACHE_TTL_MS = 5_000;
const MAX_CACHED_KEYS = 1_000;

interface CacheEntry {
  readonly environment: AuthenticatedEnvironment | null;
  readonly expiresAt: number;
}

/** Resolves a secret key to its environment, with a short cache so auth costs no query per request. */
@Injectable()
export class SecretKeyResolver {
  private readonly cache = new Map<string, CacheEntry>();
  /** One lookup per key at a time: requests arriving meanwhile wait for it. */
  private readonly lookups = new Map<string, Promise<AuthenticatedEnvironment | null>>();

  constructor(private readonly environments: EnvironmentsRepository) {}

  async resolve(secretKey: string): Promise<AuthenticatedEnvironment | null> {
    const cached = this.cached(secretKey);
    if (cached !== undefined) return cached;
    const pending = this.lookups.get(secretKey);
    if (pending) return pending;
    const lookup = this.lookUp(secretKey).finally(() => this.lookups.delete(secretKey));
    this.lookups.set(secretKey, lookup);
    return lookup;
  }

  private async lookUp(secretKey: string): Promise<AuthenticatedEnvironment | null> {
    const found = await this.environments.findIdByKeyHash(hashSecretKey(secretKey));
    const environment = found ? { id: found.id, name: found.name } : null;
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.clear();
    this.cache.set(secretKey, { environment, expiresAt: Date.now() + KEY_CACHE_TTL_MS });
    return environment;
  }

  /** The key's environment (null: no environment has it) while remembered; else undefined. */
  cached(secretKey: string): AuthenticatedEnvironment | null | undefined {
    // Keyed by the key itself: hashing it on every request was a measurable share of a cached read.
    const cached = this.cache.get(secretKey);
    return cached && cached.expiresAt > Date.now() ? cached.environment : undefined;
  }

  forgetAll(): void {
    this.cache.clear();
  }
}

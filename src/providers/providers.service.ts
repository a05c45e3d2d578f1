import { Injectable } from '@nestjs/common';
import { DomainError, InvalidRequestError } from '../common/errors/domain-error';
import { CustomProvidersRepository } from './custom-providers.repository';
import { parseProviderDefinition } from './provider-schema';
import type { ProviderDefinition } from './provider.types';
import { ProviderCatalog } from './providers.catalog';

/** Custom providers change rarely; other API replicas see a change within this time. */
const CUSTOM_CACHE_TTL_MS = 5_000;

interface CachedCustomProviders {
  readonly byName: ReadonlyMap<string, ProviderDefinition>;
  readonly expiresAt: number;
}

export type ProviderSource = 'catalog' | 'custom';

/** The providers an environment sees: its custom providers over the catalog (built-in and file). */
@Injectable()
export class ProvidersService {
  private readonly customCache = new Map<number, CachedCustomProviders>();
  /** One read per environment at a time: requests arriving meanwhile wait for it. */
  private readonly customLoads = new Map<
    number,
    Promise<ReadonlyMap<string, ProviderDefinition>>
  >();

  constructor(
    private readonly catalog: ProviderCatalog,
    private readonly customProviders: CustomProvidersRepository,
  ) {}

  async find(environmentId: number, name: string): Promise<ProviderDefinition | undefined> {
    const custom = await this.custom(environmentId);
    return custom.get(name) ?? this.catalog.get(name);
  }

  /**
   * `find` without waiting, when the environment's custom providers are in memory: the
   * provider, `null` when there is none of that name, undefined when they must be read first.
   */
  findCached(environmentId: number, name: string): ProviderDefinition | null | undefined {
    const custom = this.cachedCustom(environmentId);
    if (!custom) return undefined;
    return custom.get(name) ?? this.catalog.get(name) ?? null;
  }

  async require(environmentId: number, name: string): Promise<ProviderDefinition> {
    const provider = await this.find(environmentId, name);
    if (!provider)
      throw new DomainError(
        'provider_not_found',
        `Provider "${name}" is not in the catalog or among custom providers`,
      );
    return provider;
  }

  async list(
    environmentId: number,
  ): Promise<Array<ProviderDefinition & { source: ProviderSource }>> {
    const custom = await this.custom(environmentId);
    const catalog = this.catalog
      .list()
      .filter((provider) => !custom.has(provider.name))
      .map((provider) => ({ ...provider, source: 'catalog' as const }));
    const own = [...custom.values()].map((provider) => ({
      ...provider,
      source: 'custom' as const,
    }));
    return [...catalog, ...own].sort((a, b) => a.name.localeCompare(b.name));
  }

  async putCustom(
    environmentId: number,
    name: string,
    input: unknown,
  ): Promise<ProviderDefinition> {
    const candidate = { ...(typeof input === 'object' && input !== null ? input : {}), name };
    let definition: ProviderDefinition;
    try {
      definition = parseProviderDefinition(candidate, `custom provider ${name}`);
    } catch (error) {
      throw new InvalidRequestError((error as Error).message);
    }
    await this.customProviders.upsert(environmentId, definition);
    this.forget(environmentId);
    return definition;
  }

  async deleteCustom(environmentId: number, name: string): Promise<void> {
    const deleted = await this.customProviders.delete(environmentId, name);
    this.forget(environmentId);
    if (!deleted)
      throw new DomainError(
        'provider_not_found',
        `No custom provider "${name}" in this environment`,
      );
  }

  /** The environment's custom providers while the cache holds them; else undefined. */
  private cachedCustom(environmentId: number): ReadonlyMap<string, ProviderDefinition> | undefined {
    const cached = this.customCache.get(environmentId);
    return cached && cached.expiresAt > Date.now() ? cached.byName : undefined;
  }

  private forget(environmentId: number): void {
    this.customCache.delete(environmentId);
    this.customLoads.delete(environmentId);
  }

  private async custom(environmentId: number): Promise<ReadonlyMap<string, ProviderDefinition>> {
    const cached = this.cachedCustom(environmentId);
    if (cached) return cached;
    const pending = this.customLoads.get(environmentId);
    if (pending) return pending;
    const load = this.customProviders
      .listDefinitions(environmentId)
      .then((definitions) => {
        const byName = new Map(definitions.map((definition) => [definition.name, definition]));
        // Not kept when a change came while the read was under way (`forget`).
        if (this.customLoads.get(environmentId) === load)
          this.customCache.set(environmentId, {
            byName,
            expiresAt: Date.now() + CUSTOM_CACHE_TTL_MS,
          });
        return byName;
      })
      .finally(() => {
        if (this.customLoads.get(environmentId) === load) this.customLoads.delete(environmentId);
      });
    this.customLoads.set(environmentId, load);
    return load;
  }
}

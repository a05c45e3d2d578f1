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

  constructor(
    private readonly catalog: ProviderCatalog,
    private readonly customProviders: CustomProvidersRepository,
  ) {}

  async find(environmentId: number, name: string): Promise<ProviderDefinition | undefined> {
    const custom = await this.custom(environmentId);
    return custom.get(name) ?? this.catalog.get(name);
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
    this.customCache.delete(environmentId);
    return definition;
  }

  async deleteCustom(environmentId: number, name: string): Promise<void> {
    const deleted = await this.customProviders.delete(environmentId, name);
    this.customCache.delete(environmentId);
    if (!deleted)
      throw new DomainError(
        'provider_not_found',
        `No custom provider "${name}" in this environment`,
      );
  }

  private async custom(environmentId: number): Promise<ReadonlyMap<string, ProviderDefinition>> {
    const cached = this.customCache.get(environmentId);
    if (cached && cached.expiresAt > Date.now()) return cached.byName;
    const definitions = await this.customProviders.listDefinitions(environmentId);
    const byName = new Map(definitions.map((definition) => [definition.name, definition]));
    this.customCache.set(environmentId, { byName, expiresAt: Date.now() + CUSTOM_CACHE_TTL_MS });
    return byName;
  }
}

import { readFileSync } from 'node:fs';
import { Injectable } from '@nestjs/common';
// Imported rather than read from disk so that tsc copies the JSON next to the compiled code.
import builtInCatalog from './catalog/providers.json';
import { parseCatalog } from './provider-schema';
import type { ProviderDefinition } from './provider.types';

let builtInProviders: readonly ProviderDefinition[] | undefined;

/** The built-in catalog, validated once per process (a bad catalog fails the first construction). */
export function builtInProviderDefinitions(): readonly ProviderDefinition[] {
  builtInProviders ??= parseCatalog(builtInCatalog, 'built-in provider catalog').map(deepFreeze);
  return builtInProviders;
}

/**
 * The provider catalog: built-in providers plus, optionally, a JSON file of custom providers
 * whose entries win over built-in ones of the same name. Immutable once constructed.
 */
@Injectable()
export class ProviderCatalog {
  private readonly byName: ReadonlyMap<string, ProviderDefinition>;
  private readonly sorted: readonly ProviderDefinition[];

  constructor(customProvidersFile?: string) {
    const byName = new Map<string, ProviderDefinition>();
    for (const provider of builtInProviderDefinitions()) byName.set(provider.name, provider);
    if (customProvidersFile) {
      for (const provider of readCustomProviders(customProvidersFile)) {
        byName.set(provider.name, provider);
      }
    }
    this.byName = byName;
    this.sorted = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  get(name: string): ProviderDefinition | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Every provider, sorted by name. */
  list(): ProviderDefinition[] {
    return [...this.sorted];
  }
}

function readCustomProviders(path: string): ProviderDefinition[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`Cannot read the custom providers file ${path}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch (error) {
    throw new Error(`The custom providers file ${path} is not valid JSON: ${messageOf(error)}`, {
      cause: error,
    });
  }
  return parseCatalog(list, path).map(deepFreeze);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Definitions are shared by every caller; freezing turns an accidental mutation into an error.
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value) as unknown[]) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

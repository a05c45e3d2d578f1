import { createHash } from 'node:crypto';
import type { ScriptDefinitionJson } from './script.types';

/** JSON with object keys sorted at every depth, so equal definitions give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, entry]) => entry !== undefined)
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return Object.fromEntries(entries.map(([key, entry]) => [key, sortKeys(entry)]));
}

/** sha256 (hex) of the canonical definition JSON and the bundle: equal hashes, same version. */
export function scriptHash(definition: ScriptDefinitionJson, bundle: string): string {
  return createHash('sha256')
    .update(canonicalJson(definition))
    .update('\n')
    .update(bundle)
    .digest('hex');
}

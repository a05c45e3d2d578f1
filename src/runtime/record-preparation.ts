import { contentHash } from '../records/content-hash';
import type { PreparedRecord } from './script-protocol';

/** The part of a zod schema the runtime uses (the bundle brings its own zod, in another realm). */
export interface ParsingSchema {
  safeParse(value: unknown): {
    success: boolean;
    data?: unknown;
    error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] };
  };
  partial?: () => ParsingSchema;
}

export class RecordValidationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordValidationError';
  }
}

function describeId(record: unknown): string {
  const id = (record as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? ` (id ${JSON.stringify(id)})` : '';
}

function externalId(operation: string, model: string, record: unknown, index: number): string {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new RecordValidationError(`${operation}(${model}): record ${index} is not an object`);
  }
  const id = (record as { id?: unknown }).id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  if (typeof id === 'string' && id.length > 0) return id;
  throw new RecordValidationError(
    `${operation}(${model}): record ${index} has no "id"; every record needs a non-empty string or number id`,
  );
}

function parsed(
  operation: string,
  model: string,
  schema: ParsingSchema,
  record: unknown,
  index: number,
): unknown {
  const result = schema.safeParse(record);
  if (result.success) return result.data;
  const issues = (result.error?.issues ?? [])
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join('.') || '(record)'}: ${issue.message}`)
    .join('; ');
  throw new RecordValidationError(
    `${operation}(${model}): record ${index}${describeId(record)} does not match the model: ${issues}`,
  );
}

/** Validates records against their model, serialises each once and hashes the text. */
export function prepareRecords(
  model: string,
  schema: ParsingSchema,
  records: readonly unknown[],
): PreparedRecord[] {
  if (!Array.isArray(records)) {
    throw new RecordValidationError(`batchSave(${model}): expected an array of records`);
  }
  return records.map((record, index) => {
    externalId('batchSave', model, record, index);
    const data = parsed('batchSave', model, schema, record, index);
    const id = externalId('batchSave', model, data, index);
    const json = JSON.stringify(data);
    return { id, json, hash: contentHash(json) };
  });
}

/** Partial records for batchUpdate: each needs an id; given fields must match the model. */
export function preparePartialRecords(
  model: string,
  schema: ParsingSchema,
  records: readonly unknown[],
): { id: string; json: string }[] {
  if (!Array.isArray(records)) {
    throw new RecordValidationError(`batchUpdate(${model}): expected an array of records`);
  }
  const partial = typeof schema.partial === 'function' ? schema.partial() : undefined;
  return records.map((record, index) => {
    const id = externalId('batchUpdate', model, record, index);
    const data: unknown = partial ? parsed('batchUpdate', model, partial, record, index) : record;
    return {
      id,
      json: JSON.stringify({ ...(data as object), id: (record as { id: unknown }).id }),
    };
  });
}

/** Ids for batchDelete. */
export function recordIds(model: string, records: readonly unknown[]): string[] {
  if (!Array.isArray(records)) {
    throw new RecordValidationError(`batchDelete(${model}): expected an array of records`);
  }
  return records.map((record, index) => externalId('batchDelete', model, record, index));
}

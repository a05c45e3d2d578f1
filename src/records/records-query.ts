import type { IncomingHttpHeaders } from 'node:http';
import { DomainError, InvalidRequestError } from '../common/errors/domain-error';
import type { FieldError } from '../common/errors/error-codes';
import { decodeCursor, isValidDateTime, type RecordPosition } from './record-cursor';

export type RecordAction = 'ADDED' | 'UPDATED' | 'DELETED';

/** Model names follow the script definitions' rule (letters, digits, `-`, `_`). */
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
const MODEL_NAME_RULE =
  'must be 1-100 letters, digits, "-" or "_", starting with a letter or digit';

/** Largest `limit` of both record routes; without one, listRecords streams every record. */
export const MAX_RECORDS_LIMIT = 10_000;

const FILTER_ACTIONS: Readonly<Record<string, RecordAction>> = {
  added: 'ADDED',
  updated: 'UPDATED',
  deleted: 'DELETED',
};

/** ISO 8601 date, or date and time with optional fraction and zone (none means UTC). */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+\- ]\d{2}(?::?\d{2})?)?)?$/;

export interface RecordSelection {
  readonly connectionId: string;
  readonly providerConfigKey: string;
  readonly model: string;
  /** Normalized ISO 8601 text with a zone, passed to PostgreSQL as is (microseconds kept). */
  readonly modifiedAfter?: string;
  readonly actions?: readonly RecordAction[];
}

export interface ListRecordsQuery extends RecordSelection {
  readonly after?: RecordPosition;
  readonly limit?: number;
}

export type LegacySortBy = 'id' | 'created_at' | 'updated_at';

export interface LegacyRecordsQuery extends RecordSelection {
  readonly sortBy: LegacySortBy;
  readonly order: 'asc' | 'desc';
  readonly offset: number;
  readonly limit?: number;
}

export interface RawListRecordsQuery {
  readonly model?: string;
  readonly modified_after?: string;
  readonly delta?: string;
  readonly limit?: string;
  readonly filter?: string;
  readonly cursor?: string;
}

export interface RawLegacyRecordsQuery {
  readonly model?: string;
  readonly delta?: string;
  readonly limit?: string;
  readonly offset?: string;
  readonly filter?: string;
  readonly order?: string;
  readonly sort_by?: string;
}

/** Collects every problem of a request, then throws them as one 400. */
class Problems {
  readonly list: FieldError[] = [];

  add(path: string, message: string): undefined {
    this.list.push({ path, message });
    return undefined;
  }

  throwIfAny(): void {
    if (this.list.length === 0) return;
    const message = `Invalid request: ${this.list.map((problem) => problem.message).join('; ')}`;
    // A bad cursor alone has its own code: clients restart the walk instead of fixing a request.
    if (this.list.every((problem) => problem.path === 'cursor'))
      throw new DomainError('invalid_cursor', message, this.list);
    throw new InvalidRequestError(message, this.list);
  }
}

export function parseListRecordsQuery(
  headers: IncomingHttpHeaders,
  raw: RawListRecordsQuery,
): ListRecordsQuery {
  const problems = new Problems();
  const selection = parseSelection(headers, raw, problems);
  if (raw.modified_after !== undefined && raw.delta !== undefined)
    problems.add('delta', 'give modified_after or its alias delta, not both');
  const timestampName = raw.modified_after !== undefined ? 'modified_after' : 'delta';
  const modifiedAfter = parseTimestamp(timestampName, raw.modified_after ?? raw.delta, problems);
  const limit = parseLimit(raw.limit, problems);
  let after: RecordPosition | undefined;
  if (raw.cursor !== undefined && raw.cursor !== '') {
    after = decodeCursor(raw.cursor);
    if (!after) problems.add('cursor', 'cursor is not a next_cursor this service returned');
  }
  problems.throwIfAny();
  return { ...checked(selection), modifiedAfter, limit, after };
}

export function parseLegacyRecordsQuery(
  headers: IncomingHttpHeaders,
  raw: RawLegacyRecordsQuery,
): LegacyRecordsQuery {
  const problems = new Problems();
  const selection = parseSelection(headers, raw, problems);
  const modifiedAfter = parseTimestamp('delta', raw.delta, problems);
  const limit = parseLimit(raw.limit, problems);
  const offsetText = raw.offset ?? '0';
  const offset = /^\d{1,9}$/.test(offsetText)
    ? Number(offsetText)
    : problems.add('offset', 'offset must be a whole number from 0');
  const order = raw.order ?? 'asc';
  if (order !== 'asc' && order !== 'desc') problems.add('order', 'order must be asc or desc');
  const sortBy = raw.sort_by ?? 'id';
  if (sortBy !== 'id' && sortBy !== 'created_at' && sortBy !== 'updated_at')
    problems.add('sort_by', 'sort_by must be id, created_at or updated_at');
  problems.throwIfAny();
  return {
    ...checked(selection),
    modifiedAfter,
    limit,
    offset: offset ?? 0,
    order: order as 'asc' | 'desc',
    sortBy: sortBy as LegacySortBy,
  };
}

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

function parseSelection(
  headers: IncomingHttpHeaders,
  raw: { readonly model?: string; readonly filter?: string },
  problems: Problems,
): Partial<RecordSelection> {
  const connectionId = single(headers, 'connection-id');
  const providerConfigKey = single(headers, 'provider-config-key');
  if (!connectionId) problems.add('Connection-Id', 'the Connection-Id header is required');
  if (!providerConfigKey)
    problems.add('Provider-Config-Key', 'the Provider-Config-Key header is required');
  if (raw.model === undefined || raw.model === '') problems.add('model', 'model is required');
  else if (!MODEL_NAME.test(raw.model)) problems.add('model', `model ${MODEL_NAME_RULE}`);
  return {
    connectionId,
    providerConfigKey,
    model: raw.model,
    actions: parseFilter(raw.filter, problems),
  };
}

/** The selection once its problems were thrown. */
function checked(selection: Partial<RecordSelection>): RecordSelection {
  const { connectionId, providerConfigKey, model } = selection;
  if (!connectionId || !providerConfigKey || !model) throw new Error('Selection checked above');
  return { ...selection, connectionId, providerConfigKey, model };
}

function parseFilter(text: string | undefined, problems: Problems): RecordAction[] | undefined {
  if (text === undefined || text === '') return undefined;
  const actions = new Set<RecordAction>();
  for (const part of text.split(',')) {
    const action = FILTER_ACTIONS[part.trim().toLowerCase()];
    if (!action)
      return problems.add(
        'filter',
        `filter holds "${part.trim()}"; it must be added, updated, deleted or a comma-separated combination`,
      );
    actions.add(action);
  }
  return [...actions];
}

function parseLimit(text: string | undefined, problems: Problems): number | undefined {
  if (text === undefined || text === '') return undefined;
  const limit = /^\d{1,6}$/.test(text) ? Number(text) : 0;
  if (limit < 1 || limit > MAX_RECORDS_LIMIT)
    return problems.add('limit', `limit must be a whole number from 1 to ${MAX_RECORDS_LIMIT}`);
  return limit;
}

/**
 * An ISO 8601 timestamp as normalized text, microseconds kept. A `+` in a query string that was
 * not percent-encoded arrives as a space; it is read back as `+`.
 */
function parseTimestamp(
  name: string,
  text: string | undefined,
  problems: Problems,
): string | undefined {
  if (text === undefined || text === '') return undefined;
  const match = TIMESTAMP.exec(text.trim());
  const invalid = `${name} must be an ISO 8601 timestamp, e.g. 2024-05-01T12:00:00.000Z`;
  if (!match) return problems.add(name, invalid);
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = ''] = match;
  let zone = (match[8] ?? 'Z').toUpperCase();
  if (zone.startsWith(' ')) zone = `+${zone.slice(1)}`;
  const valid =
    isValidDateTime(
      Number(year),
      Number(month),
      Number(day),
      Number(hour),
      Number(minute),
      Number(second),
    ) && validZone(zone);
  if (!valid) return problems.add(name, invalid);
  return `${year}-${month}-${day}T${hour}:${minute}:${second}${fraction}${zone}`;
}

function validZone(zone: string): boolean {
  if (zone === 'Z') return true;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  return hours <= 15 && minutes <= 59;
}

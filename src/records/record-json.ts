import { encodeCursor } from './record-cursor';

/**
 * One stored record as PostgreSQL hands it over: the record's JSON text (without any
 * `_service_metadata` of its own) and its metadata columns, timestamps already as UTC text at
 * microsecond precision (see records-read.repository.ts).
 */
export type RecordRow = [
  body: string,
  deletedAt: string | null,
  lastAction: string,
  firstSeenAt: string,
  lastModifiedAt: string,
  id: string,
];

/**
 * The record's JSON on the wire: its stored text with `_service_metadata` appended. Only string
 * concatenation (V8 slices and joins without copying each piece): no JSON parsing per record,
 * and every appended value is digits, a fixed word or base64url, so nothing needs escaping.
 * A record that carries a `_service_metadata` of its own (rare) loses it to ours: only that
 * record is parsed.
 */
export function recordJson(row: RecordRow): string {
  const [stored, deletedAt, lastAction, firstSeenAt, lastModifiedAt, id] = row;
  const body = stored.includes('"_service_metadata"') ? withoutOwnMetadata(stored) : stored;
  const open = body.length <= 2 ? '{' : `${body.slice(0, -1)},`;
  const deleted = deletedAt === null ? 'null' : `"${deletedAt}"`;
  const cursor = encodeCursor({ lastModifiedAt, id });
  return `${open}"_service_metadata":{"deleted_at":${deleted},"last_action":"${lastAction}","first_seen_at":"${firstSeenAt}","last_modified_at":"${lastModifiedAt}","cursor":"${cursor}"}}`;
}

function withoutOwnMetadata(text: string): string {
  const record = JSON.parse(text) as Record<string, unknown>;
  delete record._service_metadata;
  return JSON.stringify(record);
}

/** The cursor that continues right after this record. */
export function rowCursor(row: RecordRow): string {
  return encodeCursor({ lastModifiedAt: row[4], id: row[5] });
}

/**
 * The opaque `cursor` of listRecords: base64url of `<last_modified_at>|<id>`, the timestamp in UTC
 * at PostgreSQL's full microsecond precision. A JavaScript Date keeps milliseconds only: a cursor
 * built from one would repeat rows and could loop forever, so the timestamp stays text throughout.
 */
export interface RecordPosition {
  /** `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  readonly lastModifiedAt: string;
  /** The row id (bigint) as decimal text. */
  readonly id: string;
}

const POSITION = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([1-9]\d{0,18})$/;
const MAX_BIGINT = 9223372036854775807n;

/** The format PostgreSQL writes a timestamp of the cursor in (see records-read.repository.ts). */
export const CURSOR_TIMESTAMP_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"';

export function encodeCursor(position: RecordPosition): string {
  return Buffer.from(`${position.lastModifiedAt}|${position.id}`).toString('base64url');
}

/** The position a cursor names, or undefined when it is not one this service wrote. */
export function decodeCursor(cursor: string): RecordPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}={0,2}$/.test(cursor)) return undefined;
  const match = POSITION.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match?.[1] || !match[2]) return undefined;
  if (BigInt(match[2]) > MAX_BIGINT || !isValidUtcTimestamp(match[1])) return undefined;
  return { lastModifiedAt: match[1], id: match[2] };
}

function isValidUtcTimestamp(text: string): boolean {
  const [year, month, day, hour, minute, second] = [
    text.slice(0, 4),
    text.slice(5, 7),
    text.slice(8, 10),
    text.slice(11, 13),
    text.slice(14, 16),
    text.slice(17, 19),
  ].map(Number);
  return isValidDateTime(year ?? 0, month ?? 0, day ?? 0, hour ?? 0, minute ?? 0, second ?? 0);
}

/** Calendar and clock ranges, so PostgreSQL never sees a timestamp it would refuse. */
export function isValidDateTime(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  if (hour > 23 || minute > 59 || second > 59) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= daysInMonth;
}

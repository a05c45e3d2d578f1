import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import Cursor from 'pg-cursor';
import type { DataSource } from 'typeorm';
import { CURSOR_TIMESTAMP_FORMAT, type RecordPosition } from './record-cursor';
import type { LegacySortBy, RecordAction } from './records-query';

/** A timestamp column as UTC text at microsecond precision (the cursor's and the wire's form). */
const timestampText = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', '${CURSOR_TIMESTAMP_FORMAT}')`;

/** Same text as `encodeCursor` in record-cursor.ts; `encode` wraps lines and pads, both removed. */
const CURSOR = `rtrim(translate(encode(convert_to(${timestampText('last_modified_at')} || '|' || id, 'UTF8'), 'base64'), E'+/\\n', '-_'), '=')`;

const metadata = (build: 'json_build_object' | 'jsonb_build_object'): string =>
  `${build}('deleted_at', ${timestampText('deleted_at')}, 'last_action', last_action,
    'first_seen_at', ${timestampText('first_seen_at')}, 'last_modified_at', ${timestampText('last_modified_at')},
    'cursor', ${CURSOR})`;

/**
 * A record as the JSON text of the wire, built by PostgreSQL so Node only concatenates. The usual
 * case appends `_service_metadata` to the stored text; a record that is empty or carries its own
 * `_service_metadata` takes the slower jsonb merge.
 */
const RECORD_JSON = `
  CASE WHEN data ? '_service_metadata' OR data = '{}'::jsonb
    THEN (data || jsonb_build_object('_service_metadata', ${metadata('jsonb_build_object')}))::text
    ELSE left(data::text, -1) || ', "_service_metadata": ' || ${metadata('json_build_object')}::text || '}'
  END`;

export interface RecordFilter {
  readonly connectionId: number;
  readonly model: string;
  readonly modifiedAfter?: string;
  readonly actions?: readonly RecordAction[];
}

export interface KeysetQuery extends RecordFilter {
  readonly after?: RecordPosition;
  /** Rows to read; undefined reads all. */
  readonly limit?: number;
}

export interface OffsetQuery extends RecordFilter {
  readonly sortBy: LegacySortBy;
  readonly order: 'asc' | 'desc';
  readonly offset: number;
  readonly limit?: number;
}

export interface Statement {
  readonly text: string;
  readonly values: unknown[];
}

const SORT_COLUMNS: Readonly<Record<LegacySortBy, string>> = {
  id: 'external_id',
  created_at: 'first_seen_at',
  updated_at: 'last_modified_at',
};

/** Rows a streaming read fetches per round trip. */
const STREAM_BATCH_ROWS = 1_000;

/** The records store's reads; every query is scoped to one connection and model. */
@Injectable()
export class RecordsReadRepository {
  private readonly pool: Pool;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.pool = (dataSource.driver as unknown as { master: Pool }).master;
  }

  /** Keyset order on (last_modified_at, id), served by the records_keyset index. */
  keysetStatement(query: KeysetQuery): Statement {
    const values: unknown[] = [query.connectionId, query.model];
    const conditions = this.filterConditions(query, values);
    if (query.after) {
      values.push(query.after.lastModifiedAt, query.after.id);
      conditions.push(
        `(last_modified_at, id) > ($${values.length - 1}::timestamptz, $${values.length}::bigint)`,
      );
    }
    let limit = '';
    if (query.limit !== undefined) {
      values.push(query.limit);
      limit = `LIMIT $${values.length}`;
    }
    return {
      text: `SELECT ${RECORD_JSON} AS record FROM records
             WHERE ${conditions.join(' AND ')} ORDER BY last_modified_at, id ${limit}`,
      values,
    };
  }

  /** The deprecated getRecords order: OFFSET pages, slow far into a large model. */
  offsetStatement(query: OffsetQuery): Statement {
    const values: unknown[] = [query.connectionId, query.model];
    const conditions = this.filterConditions(query, values);
    const direction = query.order === 'desc' ? 'DESC' : 'ASC';
    values.push(query.offset);
    let page = `OFFSET $${values.length}`;
    if (query.limit !== undefined) {
      values.push(query.limit);
      page += ` LIMIT $${values.length}`;
    }
    return {
      text: `SELECT ${RECORD_JSON} AS record FROM records
             WHERE ${conditions.join(' AND ')}
             ORDER BY ${SORT_COLUMNS[query.sortBy]} ${direction}, id ${direction} ${page}`,
      values,
    };
  }

  /** Runs a bounded statement: the JSON text of each record. */
  async records(statement: Statement): Promise<string[]> {
    const result = await this.pool.query<[string]>({ ...statement, rowMode: 'array' });
    return result.rows.map((row) => row[0]);
  }

  /**
   * Streams a statement's records as comma-joined JSON texts, a batch at a time, on a dedicated
   * client with a server-side cursor (memory stays bounded whatever the size). The client goes
   * back to the pool when the stream ends or is abandoned, and is discarded after an error.
   */
  async *stream(statement: Statement): AsyncGenerator<string, void, undefined> {
    const client = await this.pool.connect();
    let broken = false;
    const cursor = client.query(
      new Cursor<[string]>(statement.text, statement.values, {
        rowMode: 'array',
      }),
    );
    try {
      for (;;) {
        const rows = await cursor.read(STREAM_BATCH_ROWS);
        if (rows.length === 0) return;
        yield rows.map((row) => row[0]).join(',');
      }
    } catch (error) {
      broken = true;
      throw error;
    } finally {
      await cursor.close().catch(() => (broken = true));
      client.release(broken);
    }
  }

  private filterConditions(filter: RecordFilter, values: unknown[]): string[] {
    const conditions = ['connection_id = $1', 'model = $2'];
    if (filter.modifiedAfter !== undefined) {
      values.push(filter.modifiedAfter);
      conditions.push(`last_modified_at >= $${values.length}::timestamptz`);
    }
    if (filter.actions !== undefined) {
      values.push(filter.actions);
      conditions.push(`last_action = ANY($${values.length}::text[])`);
    }
    return conditions;
  }
}

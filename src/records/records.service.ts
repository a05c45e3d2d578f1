import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { InvalidRequestError } from '../common/errors/domain-error';
import { contentHash } from './content-hash';
import {
  RECORD_SEPARATOR,
  RecordsRepository,
  type RecordToWrite,
  type StoredRecord,
} from './records.repository';

/** One record of a batch as the sync runtime hands it over. */
export interface PreparedRecord {
  /** The external id, as text. */
  readonly id: string;
  /** `JSON.stringify(record)`, done by the caller. */
  readonly json: string;
  /** A digest of `json`, computed by the caller. */
  readonly hash: string;
}

export interface BatchCounts {
  added: number;
  updated: number;
  unchanged: number;
}

export interface ModelChanges {
  added: number;
  updated: number;
  deleted: number;
}

interface Classified {
  readonly toWrite: readonly RecordToWrite[];
  /** External ids of deleted records this batch brings back. */
  readonly revived: ReadonlySet<string>;
  /** Stored row ids of unchanged live records not yet marked as seen by the run. */
  readonly unseenRowIds: readonly string[];
  readonly counts: BatchCounts;
}

const OBJECT_START = 0x7b; // "{"

/**
 * The records store behind syncs. Every method takes a few bulk statements per batch, never a
 * round trip per record; which records changed is decided by their stored hash.
 */
@Injectable()
export class RecordsService {
  /**
   * Per (connection, model): whether its last batch held only new records. Such a model's next
   * batch is tried as one plain INSERT, without looking its records up first (an initial sync);
   * when one of them turns out to be stored, nothing is written and the batch takes the usual
   * way: look up, then write only new and changed records (unchanged ones are never sent).
   */
  private readonly allNew = new LRUCache<string, boolean>({ max: 10_000 });

  constructor(private readonly records: RecordsRepository) {}

  /**
   * Stores a batch: new records ADDED, changed ones UPDATED, unchanged ones left as they are
   * (with `trackSeen`, only their seen_run_id moves to the run). Within a batch the last
   * occurrence of an id wins.
   */
  async saveBatch(input: {
    connectionId: number;
    model: string;
    records: readonly PreparedRecord[];
    runId: string | null;
    trackSeen: boolean;
  }): Promise<BatchCounts> {
    const unique = lastOccurrences(input.records);
    if (unique.length === 0) return { added: 0, updated: 0, unchanged: 0 };
    const key = `${input.connectionId}\u0000${input.model}`;
    const counts =
      this.allNew.get(key) &&
      (await this.records.insertAll(
        input.connectionId,
        input.model,
        unique.map(recordToWrite),
        input.runId,
      ))
        ? { added: unique.length, updated: 0, unchanged: 0 }
        : await this.saveStored(input, unique);
    this.allNew.set(key, counts.added === unique.length);
    return counts;
  }

  /** Looks the records up, then writes the new and changed ones and marks the unchanged seen. */
  private async saveStored(
    input: { connectionId: number; model: string; runId: string | null; trackSeen: boolean },
    unique: readonly PreparedRecord[],
  ): Promise<BatchCounts> {
    const classified = await this.classifyBatch(
      input.connectionId,
      input.model,
      unique,
      input.runId,
    );
    const counts: BatchCounts = { added: 0, updated: 0, unchanged: unique.length };
    if (classified.toWrite.length > 0) {
      const written = await this.records.upsert(
        input.connectionId,
        input.model,
        classified.toWrite,
        input.runId,
      );
      for (const row of written) {
        if (row.inserted || classified.revived.has(row.externalId)) counts.added += 1;
        else counts.updated += 1;
      }
      counts.unchanged -= written.length;
    }
    if (input.trackSeen && input.runId !== null && classified.unseenRowIds.length > 0)
      await this.records.markSeen(classified.unseenRowIds, input.runId);
    return counts;
  }

  /** What saveBatch would do with this batch, without writing (dry runs). */
  async classify(input: {
    connectionId: number;
    model: string;
    records: readonly PreparedRecord[];
  }): Promise<BatchCounts> {
    const unique = lastOccurrences(input.records);
    return (await this.classifyBatch(input.connectionId, input.model, unique, null)).counts;
  }

  /**
   * Shallow-merges the given fields into live records: the stored JSON's keys keep their order
   * and new ones follow, and the new text is hashed as saved records are, so the merged record
   * saved again with the same content is unchanged. `missing`: ids with no live record. A merge
   * that changes nothing writes nothing and is not counted.
   */
  async updateBatch(input: {
    connectionId: number;
    model: string;
    records: readonly { id: string; json: string }[];
    runId: string | null;
  }): Promise<{ updated: number; missing: string[] }> {
    const patches = new Map(
      mergeDuplicatePatches(input.records).map((patch) => [patch.externalId, patch.json]),
    );
    if (patches.size === 0) return { updated: 0, missing: [] };
    let updated = 0;
    const found = await this.records.merge(
      input.connectionId,
      input.model,
      [...patches.keys()],
      input.runId,
      (stored) => {
        const merged = stored.flatMap((row) => {
          const json = JSON.stringify({
            ...(JSON.parse(row.json) as object),
            ...(JSON.parse(patches.get(row.externalId) ?? '{}') as object),
          });
          return json === row.json ? [] : [{ rowId: row.rowId, json, hash: contentHash(json) }];
        });
        updated = merged.length;
        return merged;
      },
    );
    const present = new Set(found);
    return { updated, missing: [...patches.keys()].filter((id) => !present.has(id)) };
  }

  /** Marks live records deleted; unknown or already deleted ids are no-ops. */
  async deleteBatch(input: {
    connectionId: number;
    model: string;
    ids: readonly string[];
    runId: string | null;
  }): Promise<{ deleted: number }> {
    const ids = sortedUnique(input.ids);
    if (ids.length === 0) return { deleted: 0 };
    const deleted = await this.records.delete(input.connectionId, input.model, ids, input.runId);
    return { deleted: deleted.length };
  }

  /** After a successful full run with deletion tracking: live records it did not save are deleted. */
  async deleteUnseen(input: {
    connectionId: number;
    model: string;
    runId: string;
  }): Promise<{ deleted: number }> {
    return {
      deleted: await this.records.deleteUnseen(input.connectionId, input.model, input.runId),
    };
  }

  /**
   * What a run changed, by model, from the rows it last modified: exact even when a retried
   * activity saved a batch twice (the second save finds the records unchanged).
   */
  async runChanges(input: {
    connectionId: number;
    runId: string;
  }): Promise<Record<string, ModelChanges>> {
    const changes: Record<string, ModelChanges> = {};
    for (const row of await this.records.runChanges(input.connectionId, input.runId)) {
      const model = (changes[row.model] ??= { added: 0, updated: 0, deleted: 0 });
      if (row.lastAction === 'ADDED') model.added += row.count;
      else if (row.lastAction === 'UPDATED') model.updated += row.count;
      else model.deleted += row.count;
    }
    return changes;
  }

  private async classifyBatch(
    connectionId: number,
    model: string,
    unique: readonly PreparedRecord[],
    runId: string | null,
  ): Promise<Classified> {
    const stored =
      unique.length === 0
        ? []
        : await this.records.findStored(
            connectionId,
            model,
            unique.map((record) => record.id),
            runId,
          );
    const byId = new Map<string, StoredRecord>(stored.map((row) => [row.externalId, row]));
    const toWrite: RecordToWrite[] = [];
    const revived = new Set<string>();
    const unseenRowIds: string[] = [];
    const counts: BatchCounts = { added: 0, updated: 0, unchanged: 0 };
    for (const record of unique) {
      const row = byId.get(record.id);
      if (row && !row.deleted && row.hash === record.hash) {
        counts.unchanged += 1;
        if (!row.seen) unseenRowIds.push(row.rowId);
        continue;
      }
      if (!row || row.deleted) counts.added += 1;
      else counts.updated += 1;
      if (row?.deleted) revived.add(record.id);
      toWrite.push(recordToWrite(record));
    }
    return { toWrite, revived, unseenRowIds, counts };
  }
}

/**
 * The last occurrence of each id, sorted by id: concurrent batches then lock shared keys in the
 * same order and cannot deadlock each other.
 */
function lastOccurrences(records: readonly PreparedRecord[]): PreparedRecord[] {
  const byId = new Map<string, PreparedRecord>();
  for (const record of records) {
    checkRecord(record);
    byId.set(record.id, record);
  }
  return [...byId.values()].sort((a, b) => compareIds(a.id, b.id));
}

function recordToWrite(record: PreparedRecord): RecordToWrite {
  return { externalId: record.id, json: record.json, hash: record.hash };
}

function checkRecord(record: PreparedRecord): void {
  if (record.id === '' || record.id.includes('\0'))
    throw new InvalidRequestError(
      `A record id must be non-empty text, got ${JSON.stringify(record.id)}`,
    );
  if (record.json.charCodeAt(0) !== OBJECT_START || record.json.includes(RECORD_SEPARATOR))
    throw new InvalidRequestError(`Record "${record.id}" is not a JSON object`);
}

function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function sortedUnique(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort(compareIds);
}

/** Several patches of one record in a batch apply in order, as one shallow merge. */
function mergeDuplicatePatches(
  records: readonly { id: string; json: string }[],
): Array<{ externalId: string; json: string }> {
  const byId = new Map<string, string[]>();
  for (const record of records) {
    checkRecord({ ...record, hash: '' });
    const list = byId.get(record.id);
    if (list) list.push(record.json);
    else byId.set(record.id, [record.json]);
  }
  return [...byId.entries()]
    .sort(([a], [b]) => compareIds(a, b))
    .map(([externalId, texts]) => ({
      externalId,
      json:
        texts.length === 1
          ? (texts[0] ?? '{}')
          : JSON.stringify(
              Object.assign({}, ...texts.map((text) => JSON.parse(text) as object)) as object,
            ),
    }));
}

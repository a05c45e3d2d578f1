import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { contentHash } from '../../src/records/content-hash';
import { RecordsRepository } from '../../src/records/records.repository';
import { type PreparedRecord, RecordsService } from '../../src/records/records.service';
import { createTestDatabase, queryDatabase, type TestDatabase } from '../harness/databases';

interface StoredRow {
  external_id: string;
  data: Record<string, unknown>;
  last_action: string;
  first_seen_at: string;
  last_modified_at: string;
  deleted_at: string | null;
  sync_run_id: string | null;
  seen_run_id: string | null;
}

const prepared = (id: string, fields: Record<string, unknown>): PreparedRecord => {
  const json = JSON.stringify({ id, ...fields });
  return { id, json, hash: createHash('sha1').update(json).digest('base64') };
};

describe('records store', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let records: RecordsService;
  let connectionId: number;
  let modelCounter = 0;
  /** A fresh model per test, so tests do not see each other's records. */
  const newModel = (): string => `Model${(modelCounter += 1)}`;

  const stored = async (model: string): Promise<Map<string, StoredRow>> => {
    const rows = await queryDatabase<StoredRow>(
      database.url,
      `SELECT external_id, data, last_action, first_seen_at::text, last_modified_at::text,
              deleted_at::text, sync_run_id::text, seen_run_id::text
       FROM records WHERE connection_id = $1 AND model = $2`,
      [connectionId, model],
    );
    return new Map(rows.map((row) => [row.external_id, row]));
  };
  const row = async (model: string, id: string): Promise<StoredRow> => {
    const found = (await stored(model)).get(id);
    if (!found) throw new Error(`No record ${id}`);
    return found;
  };
  const save = (model: string, batch: PreparedRecord[], runId: string | null, trackSeen = false) =>
    records.saveBatch({ connectionId, model, records: batch, runId, trackSeen });

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = new DataSource(dataSourceOptions({ url: database.url, poolSize: 6 }));
    await dataSource.initialize();
    records = new RecordsService(new RecordsRepository(dataSource));
    const [created] = await queryDatabase<{ id: number }>(
      database.url,
      `WITH e AS (INSERT INTO environments (name, secret_key_hash) VALUES ('dev', 'x') RETURNING id),
            i AS (INSERT INTO integrations (environment_id, unique_key, provider)
                  SELECT id, 'crm', 'stripe' FROM e RETURNING id, environment_id)
       INSERT INTO connections (environment_id, integration_id, connection_id, credentials)
       SELECT environment_id, id, 'u1', 'x' FROM i RETURNING id`,
    );
    connectionId = created?.id ?? 0;
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  it('classifies added, updated and unchanged records and leaves unchanged ones unwritten', async () => {
    const model = newModel();
    expect(await save(model, [prepared('a', { v: 1 }), prepared('b', { v: 1 })], '1')).toEqual({
      added: 2,
      updated: 0,
      unchanged: 0,
    });
    const before = await stored(model);
    expect(before.get('a')).toMatchObject({
      last_action: 'ADDED',
      data: { id: 'a', v: 1 },
      sync_run_id: '1',
      seen_run_id: '1',
      deleted_at: null,
    });
    expect(before.get('a')?.first_seen_at).toBe(before.get('a')?.last_modified_at);

    const counts = await save(
      model,
      [prepared('a', { v: 1 }), prepared('b', { v: 2 }), prepared('c', { v: 1 })],
      '2',
    );
    expect(counts).toEqual({ added: 1, updated: 1, unchanged: 1 });
    const after = await stored(model);
    // Unchanged: not rewritten at all.
    expect(after.get('a')).toEqual(before.get('a'));
    expect(after.get('b')).toMatchObject({
      last_action: 'UPDATED',
      data: { id: 'b', v: 2 },
      sync_run_id: '2',
      first_seen_at: before.get('b')?.first_seen_at,
    });
    expect(after.get('b')?.last_modified_at).not.toBe(before.get('b')?.last_modified_at);
    expect(after.get('c')?.last_action).toBe('ADDED');
  });

  it('classifies a mixed batch alike after a batch of only new records (tried as one plain insert first) and after an unchanged one (looked up first)', async () => {
    const first = ['a', 'b', 'c', 'd'].map((id) => prepared(id, { v: 1 }));
    const mixed = [
      prepared('a', { v: 1 }),
      prepared('b', { v: 2 }),
      prepared('d', { v: 1 }),
      prepared('e', { v: 1 }),
    ];
    const outcomes = [];
    for (const savedTwice of [false, true]) {
      const model = newModel();
      expect(await save(model, first, '30', true)).toEqual({ added: 4, updated: 0, unchanged: 0 });
      if (savedTwice)
        expect(await save(model, first, '30', true)).toEqual({
          added: 0,
          updated: 0,
          unchanged: 4,
        });
      await records.deleteBatch({ connectionId, model, ids: ['d'], runId: '31' });
      expect(await save(model, mixed, '32', true)).toEqual({ added: 2, updated: 1, unchanged: 1 });
      const rows = await stored(model);
      // One batch, one instant: what it inserted and what it updated share last_modified_at.
      expect(rows.get('e')?.last_modified_at).toBe(rows.get('b')?.last_modified_at);
      outcomes.push(
        [...rows.values()]
          .sort((left, right) => left.external_id.localeCompare(right.external_id))
          .map((stored) => [
            stored.external_id,
            stored.last_action,
            stored.seen_run_id,
            stored.data,
          ]),
      );
    }
    expect(outcomes[0]).toEqual([
      ['a', 'ADDED', '32', { id: 'a', v: 1 }],
      ['b', 'UPDATED', '32', { id: 'b', v: 2 }],
      ['c', 'ADDED', '30', { id: 'c', v: 1 }],
      ['d', 'ADDED', '32', { id: 'd', v: 1 }],
      ['e', 'ADDED', '32', { id: 'e', v: 1 }],
    ]);
    expect(outcomes[1]).toEqual(outcomes[0]);
  });

  it('keeps the last occurrence of an id within a batch', async () => {
    const model = newModel();
    const counts = await save(
      model,
      [prepared('x', { v: 1 }), prepared('y', { v: 1 }), prepared('x', { v: 3 })],
      '10',
    );
    expect(counts).toEqual({ added: 2, updated: 0, unchanged: 0 });
    expect((await row(model, 'x')).data).toEqual({ id: 'x', v: 3 });
  });

  it('brings a deleted record back as ADDED, first_seen_at kept', async () => {
    const model = newModel();
    await save(model, [prepared('d', { v: 1 })], '20');
    const first = await row(model, 'd');
    expect(
      await records.deleteBatch({ connectionId, model, ids: ['d', 'd', 'nope'], runId: '21' }),
    ).toEqual({ deleted: 1 });
    expect(await records.deleteBatch({ connectionId, model, ids: ['d'], runId: '21' })).toEqual({
      deleted: 0,
    });
    const deleted = await row(model, 'd');
    expect(deleted).toMatchObject({ last_action: 'DELETED', sync_run_id: '21' });
    expect(deleted.deleted_at).toBe(deleted.last_modified_at);

    // Same content as before the delete: still a change, since the record was gone.
    expect(await save(model, [prepared('d', { v: 1 })], '22')).toEqual({
      added: 1,
      updated: 0,
      unchanged: 0,
    });
    const back = await row(model, 'd');
    expect(back).toMatchObject({
      last_action: 'ADDED',
      deleted_at: null,
      first_seen_at: first.first_seen_at,
      sync_run_id: '22',
    });
    expect(back.last_modified_at > deleted.last_modified_at).toBe(true);
  });

  it('keeps a record ADDED when the run that added it changes it again', async () => {
    const model = newModel();
    await save(model, [prepared('s', { v: 1 }), prepared('t', { v: 1 })], '30');
    expect(await save(model, [prepared('s', { v: 2 })], '30')).toEqual({
      added: 0,
      updated: 1,
      unchanged: 0,
    });
    expect(await row(model, 's')).toMatchObject({ last_action: 'ADDED', data: { v: 2 } });
    await save(model, [prepared('t', { v: 2 })], '31');
    expect((await row(model, 't')).last_action).toBe('UPDATED');
    // Without a run, nothing counts as the same run.
    await save(model, [prepared('n', { v: 1 })], null);
    await save(model, [prepared('n', { v: 2 })], null);
    expect((await row(model, 'n')).last_action).toBe('UPDATED');
  });

  it('deletes the live records a full run did not save (trackSeen)', async () => {
    const model = newModel();
    await save(model, [prepared('k1', {}), prepared('k2', {}), prepared('k3', {})], '40', true);
    await records.deleteBatch({ connectionId, model, ids: ['k3'], runId: '40' });
    const before = await row(model, 'k1');
    // Run 41 sees k1 unchanged and k2 changed; k3 is already deleted.
    expect(await save(model, [prepared('k1', {}), prepared('k2', { v: 2 })], '41', true)).toEqual({
      added: 0,
      updated: 1,
      unchanged: 1,
    });
    const k1 = await row(model, 'k1');
    expect(k1).toMatchObject({ seen_run_id: '41', sync_run_id: '40' });
    expect(k1.last_modified_at).toBe(before.last_modified_at);
    expect(await records.deleteUnseen({ connectionId, model, runId: '41' })).toEqual({
      deleted: 0,
    });

    // Run 42 only saves k2: k1 goes.
    await save(model, [prepared('k2', { v: 2 })], '42', true);
    expect(await records.deleteUnseen({ connectionId, model, runId: '42' })).toEqual({
      deleted: 1,
    });
    const all = await stored(model);
    expect(all.get('k1')).toMatchObject({ last_action: 'DELETED', sync_run_id: '42' });
    expect(all.get('k2')?.deleted_at).toBeNull();
    expect(all.get('k3')).toMatchObject({ last_action: 'DELETED', sync_run_id: '40' });
  });

  it('counts what a run changed exactly, even when a batch was saved twice', async () => {
    const modelA = newModel();
    const modelB = newModel();
    await save(modelA, [prepared('u', { v: 1 }), prepared('g', { v: 1 })], '50');
    const batch = [prepared('n1', {}), prepared('n2', {}), prepared('u', { v: 2 })];
    expect(await save(modelA, batch, '51')).toEqual({ added: 2, updated: 1, unchanged: 0 });
    // A retried activity saves the same batch again: nothing changes this time.
    expect(await save(modelA, batch, '51')).toEqual({ added: 0, updated: 0, unchanged: 3 });
    await records.deleteBatch({ connectionId, model: modelA, ids: ['g'], runId: '51' });
    await save(modelB, [prepared('b1', {})], '51');
    expect(await records.runChanges({ connectionId, runId: '51' })).toEqual({
      [modelA]: { added: 2, updated: 1, deleted: 1 },
      [modelB]: { added: 1, updated: 0, deleted: 0 },
    });
    expect(await records.runChanges({ connectionId, runId: '999' })).toEqual({});
  });

  it('classify tells what saveBatch would do and writes nothing', async () => {
    const model = newModel();
    await save(model, [prepared('p', { v: 1 }), prepared('q', { v: 1 })], '60');
    await records.deleteBatch({ connectionId, model, ids: ['q'], runId: '60' });
    const before = await stored(model);
    const batch = [prepared('p', { v: 2 }), prepared('q', { v: 1 }), prepared('r', {})];
    expect(await records.classify({ connectionId, model, records: batch })).toEqual({
      added: 2,
      updated: 1,
      unchanged: 0,
    });
    expect(await stored(model)).toEqual(before);
  });

  it('merges fields into live records with updateBatch', async () => {
    const model = newModel();
    await save(model, [prepared('m1', { a: 1, b: 1 }), prepared('m2', { a: 1 })], '70');
    await records.deleteBatch({ connectionId, model, ids: ['m2'], runId: '70' });
    const result = await records.updateBatch({
      connectionId,
      model,
      records: [
        { id: 'm1', json: '{"b":2}' },
        { id: 'm1', json: '{"c":3}' },
        { id: 'm2', json: '{"b":2}' },
        { id: 'gone', json: '{"b":2}' },
      ],
      runId: '71',
    });
    expect(result.updated).toBe(1);
    expect(result.missing.sort()).toEqual(['gone', 'm2']);
    expect(await row(model, 'm1')).toMatchObject({
      data: { id: 'm1', a: 1, b: 2, c: 3 },
      last_action: 'UPDATED',
      sync_run_id: '71',
    });
    // Merging what is already there changes nothing.
    expect(
      await records.updateBatch({
        connectionId,
        model,
        records: [{ id: 'm1', json: '{"c":3}' }],
        runId: '72',
      }),
    ).toEqual({ updated: 0, missing: [] });
  });

  it('keeps key order and hashes a merge as a save would: the merged record saved again is unchanged', async () => {
    const model = newModel();
    const saved = (fields: Record<string, unknown>): PreparedRecord => {
      const json = JSON.stringify({ id: 'h1', ...fields });
      return { id: 'h1', json, hash: contentHash(json) };
    };
    await save(model, [saved({ title: 'a', size: 1 })], '73');
    await records.updateBatch({
      connectionId,
      model,
      records: [{ id: 'h1', json: '{"size":2,"label":"x"}' }],
      runId: '74',
    });
    const [text] = await queryDatabase<{ data: string }>(
      database.url,
      'SELECT data::text AS data FROM records WHERE connection_id = $1 AND model = $2',
      [connectionId, model],
    );
    expect(text?.data).toBe('{"id":"h1","title":"a","size":2,"label":"x"}');
    // The next run fetches the record as the merge left it: nothing to write.
    expect(await save(model, [saved({ title: 'a', size: 2, label: 'x' })], '75')).toEqual({
      added: 0,
      updated: 0,
      unchanged: 1,
    });
    expect((await row(model, 'h1')).sync_run_id).toBe('74');
  });

  it('refuses a record that is not a JSON object', async () => {
    await expect(
      save(newModel(), [{ id: 'z', json: '[1]', hash: 'h' }], '80'),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('survives concurrent saves of overlapping keys', async () => {
    const model = newModel();
    const batch = (offset: number, version: number): PreparedRecord[] =>
      Array.from({ length: 400 }, (_unused, index) =>
        prepared(`c${(index + offset) % 600}`, { version }),
      );
    const results = await Promise.all([
      save(model, batch(0, 1), '90'),
      save(model, batch(200, 1).reverse(), '90'),
      save(model, batch(100, 2), '91'),
      save(model, batch(300, 1), '92'),
    ]);
    for (const counts of results)
      expect(counts.added + counts.updated + counts.unchanged).toBe(400);
    const all = await stored(model);
    expect(all.size).toBe(600);
    // Each key ended with one of the versions saved for it.
    for (const record of all.values()) expect([1, 2]).toContain(record.data.version);
  });
});

import { createHash } from 'node:crypto';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { type Junction, type JunctionError, type SyncedRecord } from '../../src/client';
import { type PreparedRecord, RecordsService } from '../../src/records/records.service';
import { startTestApp, type TestApp } from '../harness/test-app';

const INTEGRATION = 'crm';
const CONNECTION = 'user-1';

const prepared = (id: string, fields: Record<string, unknown> = {}): PreparedRecord => {
  const json = JSON.stringify({ id, ...fields });
  return { id, json, hash: createHash('sha1').update(json).digest('base64') };
};

type Contact = { id: string; name?: string; v?: number };

describe('records through the client', () => {
  let app: TestApp;
  let client: Junction;
  let records: RecordsService;
  let connectionId: number;
  let runCounter = 100;
  const nextRun = (): string => String((runCounter += 1));

  const save = (model: string, batch: PreparedRecord[]) =>
    records.saveBatch({ connectionId, model, records: batch, runId: nextRun(), trackSeen: false });
  const list = (model: string, extra: Record<string, unknown> = {}) =>
    client.listRecords<Contact>({
      providerConfigKey: INTEGRATION,
      connectionId: CONNECTION,
      model,
      ...extra,
    });
  const walk = async (model: string, limit: number, between?: (page: number) => Promise<void>) => {
    const seen: SyncedRecord<Contact>[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 1000; page += 1) {
      const result = await list(model, { limit, cursor });
      expect(result.records.length).toBeLessThanOrEqual(limit);
      seen.push(...result.records);
      if (result.next_cursor === null) return seen;
      cursor = result.next_cursor;
      await between?.(page);
    }
    throw new Error('The walk did not end');
  };
  const failure = async (promise: Promise<unknown>): Promise<JunctionError> => {
    try {
      await promise;
    } catch (error) {
      return error as JunctionError;
    }
    throw new Error('Expected a failure');
  };

  /**
   * A GET on its own connection (closed after it), with the dev key and the connection headers;
   * `leaveEarly` closes it after the first chunk of the body, as a caller that gives up would.
   */
  const rawGet = (path: string, options: { leaveEarly?: boolean } = {}) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>(
      (resolve, reject) => {
        const request = httpGet(
          `${app.url}${path}`,
          {
            agent: false,
            headers: {
              authorization: `Bearer ${app.devKey}`,
              'connection-id': CONNECTION,
              'provider-config-key': INTEGRATION,
            },
          },
          (response) => {
            const answer = { status: response.statusCode ?? 0, headers: response.headers };
            let body = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              body += chunk;
              if (!options.leaveEarly) return;
              request.destroy();
              resolve({ ...answer, body });
            });
            response.on('end', () => resolve({ ...answer, body }));
            response.on('error', reject);
          },
        );
        request.on('error', (error) => (options.leaveEarly ? undefined : reject(error)));
      },
    );

  beforeAll(async () => {
    app = await startTestApp();
    client = app.client();
    records = app.service.context.get(RecordsService);
    for (const key of [app.devKey, app.prodKey]) {
      await app
        .client(key)
        .createIntegration({ provider: 'stripe', provider_config_key: INTEGRATION });
    }
    const connection = await client.importConnection({
      provider_config_key: INTEGRATION,
      connection_id: CONNECTION,
      api_key: 'sk_test_dev',
    });
    connectionId = connection.id;
    await app.client(app.prodKey).importConnection({
      provider_config_key: INTEGRATION,
      connection_id: CONNECTION,
      api_key: 'sk_test_prod',
    });
    await client.importConnection({
      provider_config_key: INTEGRATION,
      connection_id: 'dev-only',
      api_key: 'sk_test_dev2',
    });
  });
  afterAll(() => app.stop());

  it('returns each record with its _service_metadata', async () => {
    await save('Shape', [
      prepared('a', { name: 'Ada', nested: { list: [1, 2] } }),
      { id: 'empty', json: '{}', hash: 'e' },
      prepared('own', { _service_metadata: 'theirs' }),
    ]);
    const { records: page, next_cursor } = await list('Shape');
    expect(next_cursor).toBeNull();
    expect(page).toHaveLength(3);
    const ada = page.find((record) => record.id === 'a');
    expect(ada).toMatchObject({ id: 'a', name: 'Ada', nested: { list: [1, 2] } });
    const metadata = ada?._service_metadata;
    expect(metadata).toMatchObject({ deleted_at: null, last_action: 'ADDED' });
    expect(metadata?.first_seen_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(metadata?.last_modified_at).toBe(metadata?.first_seen_at);
    expect(typeof metadata?.cursor).toBe('string');
    expect(page.find((record) => record.id === undefined)?._service_metadata.last_action).toBe(
      'ADDED',
    );
    expect(typeof page.find((record) => record.id === 'own')?._service_metadata.cursor).toBe(
      'string',
    );
  });

  it('walks every record exactly once, in order, page by page', async () => {
    await save(
      'Walk',
      Array.from({ length: 23 }, (_unused, index) => prepared(`w${index}`)),
    );
    await save(
      'Walk',
      Array.from({ length: 4 }, (_unused, index) => prepared(`x${index}`)),
    );
    const all = await list('Walk');
    expect(all.records).toHaveLength(27);
    const keys = all.records.map((record) => [
      record._service_metadata.last_modified_at,
      record._service_metadata.cursor,
    ]);
    const sorted = [...all.records].sort((a, b) =>
      a._service_metadata.last_modified_at.localeCompare(b._service_metadata.last_modified_at),
    );
    expect(sorted.map((record) => record.id)).toEqual(all.records.map((record) => record.id));
    expect(new Set(keys.map(([, cursor]) => cursor)).size).toBe(27);

    for (const limit of [1, 5, 27, 100]) {
      const walked = await walk('Walk', limit);
      expect(walked.map((record) => record.id)).toEqual(all.records.map((record) => record.id));
    }
    // A full last page still says whether more follows: 27 = 3 pages of 9.
    const third = await list('Walk', {
      limit: 9,
      cursor: all.records[17]?._service_metadata.cursor,
    });
    expect(third.records).toHaveLength(9);
    expect(third.next_cursor).toBeNull();
  });

  it('keeps a cursor valid across writes: changed records come again later, none is skipped', async () => {
    await save(
      'Live',
      Array.from({ length: 20 }, (_unused, index) => prepared(`l${index}`)),
    );
    const original = (await list('Live')).records.map((record) => record.id);
    const walked = await walk('Live', 4, async (page) => {
      if (page !== 1) return;
      // After two pages: change one record already read and one not read yet, add one.
      await save('Live', [prepared(original[1] ?? ''), prepared(original[15] ?? '', { v: 2 })]);
      await save('Live', [prepared(original[2] ?? '', { v: 2 }), prepared('l-new')]);
    });
    const ids = walked.map((record) => record.id);
    for (const id of original) expect(ids).toContain(id);
    expect(ids).toContain('l-new');
    // The record changed after it was read comes again, at the end.
    expect(ids.filter((id) => id === original[2])).toHaveLength(2);
    expect(ids.filter((id) => id === original[15])).toHaveLength(1);
    expect(ids.filter((id) => id === original[1])).toHaveLength(1); // unchanged: not rewritten
    expect(ids.slice(-3).sort()).toEqual([original[15], original[2], 'l-new'].sort());
  });

  it('filters by modified_after (alias delta) and by change kind', async () => {
    await save('Delta', [prepared('d1'), prepared('d2'), prepared('d3'), prepared('d4')]);
    await save('Delta', [prepared('d2', { v: 2 }), prepared('d5')]);
    await records.deleteBatch({ connectionId, model: 'Delta', ids: ['d3'], runId: nextRun() });
    const all = (await list('Delta')).records;
    const d2 = all.find((record) => record.id === 'd2');
    const since = d2?._service_metadata.last_modified_at ?? '';
    expect(since).toMatch(/\.\d{6}Z$/);

    const changed = (await list('Delta', { modifiedAfter: since })).records.map(
      (record) => record.id,
    );
    expect(changed.sort()).toEqual(['d2', 'd3', 'd5']);
    expect(
      (await list('Delta', { delta: since })).records.map((record) => record.id).sort(),
    ).toEqual(['d2', 'd3', 'd5']);
    // A timestamp with an offset instead of Z means the same instant.
    const date = new Date(new Date(since).getTime() - 1);
    expect((await list('Delta', { modifiedAfter: date })).records.length).toBeGreaterThanOrEqual(3);

    const ids = async (filter: string | string[]) =>
      (await list('Delta', { filter })).records.map((record) => record.id).sort();
    expect(await ids('added')).toEqual(['d1', 'd4', 'd5']);
    expect(await ids('updated')).toEqual(['d2']);
    expect(await ids('deleted')).toEqual(['d3']);
    expect(await ids('added,updated')).toEqual(['d1', 'd2', 'd4', 'd5']);
    expect(await ids(['updated', 'deleted'])).toEqual(['d2', 'd3']);
    expect(await ids('Deleted, added')).toEqual(['d1', 'd3', 'd4', 'd5']);
    const deleted = all.find((record) => record.id === 'd3')?._service_metadata;
    expect(deleted?.last_action).toBe('DELETED');
    expect(deleted?.deleted_at).toBe(deleted?.last_modified_at);
  });

  it('returns no records for a model the connection does not have', async () => {
    expect(await list('Nothing')).toEqual({ records: [], next_cursor: null });
    expect(await list('Nothing', { limit: 10 })).toEqual({ records: [], next_cursor: null });
  });

  it('streams every record when no limit is given, and frees the database client when the caller leaves', async () => {
    const batch = Array.from({ length: 3000 }, (_unused, index) =>
      prepared(`s${String(index).padStart(5, '0')}`, { text: 'x'.repeat(500) }),
    );
    await save('Big', batch);
    const all = await list('Big');
    expect(all.records).toHaveLength(3000);
    expect(all.next_cursor).toBeNull();
    expect(new Set(all.records.map((record) => record.id)).size).toBe(3000);

    // More abandoned streams than the pool has clients (DATABASE_POOL_SIZE 4).
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const response = await rawGet('/records?model=Big', { leaveEarly: true });
      expect(response.status).toBe(200);
    }
    const after = await list('Big', { limit: 2 });
    expect(after.records).toHaveLength(2);
    const pool = (app.service.context.get(DataSource).driver as unknown as { master: Pool }).master;
    const deadline = Date.now() + 10_000;
    while (pool.idleCount < pool.totalCount && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));

    expect(pool.idleCount).toBe(pool.totalCount);
  });

  it('names the bad parameter in a 400', async () => {
    const problem = async (extra: Record<string, unknown>, model = 'Walk') => {
      const error = await failure(
        client.listRecords({
          providerConfigKey: INTEGRATION,
          connectionId: CONNECTION,
          model,
          ...extra,
        }),
      );
      expect(error.status).toBe(400);
      return { code: error.code, paths: error.errors.map((item) => item.path) };
    };
    expect(await problem({ cursor: 'not-a-cursor' })).toEqual({
      code: 'invalid_cursor',
      paths: ['cursor'],
    });
    const forged = Buffer.from('2024-13-01T00:00:00.000000Z|1').toString('base64url');
    expect((await problem({ cursor: forged })).paths).toEqual(['cursor']);
    expect(await problem({ filter: 'added,removed' })).toEqual({
      code: 'invalid_request',
      paths: ['filter'],
    });
    expect((await problem({ modifiedAfter: 'yesterday' })).paths).toEqual(['modified_after']);
    expect((await problem({ delta: '2024-02-30T00:00:00Z' })).paths).toEqual(['delta']);
    expect((await problem({ limit: 0 })).paths).toEqual(['limit']);
    expect((await problem({ limit: 10_001 })).paths).toEqual(['limit']);
    expect((await problem({}, '')).paths).toEqual(['model']);
    expect((await problem({}, 'bad model!')).paths).toEqual(['model']);
    expect((await problem({ filter: 'nope', limit: -1 })).paths.sort()).toEqual([
      'filter',
      'limit',
    ]);

    const headers = await failure(
      client.listRecords({ providerConfigKey: '', connectionId: '', model: 'Walk' }),
    );
    expect(headers.status).toBe(400);
    expect(headers.errors.map((item) => item.path).sort()).toEqual([
      'Connection-Id',
      'Provider-Config-Key',
    ]);
    expect((await rawGet('/records?model=Walk&colour=red')).status).toBe(400);
  });

  it('answers 404 for an unknown connection or integration', async () => {
    const unknownConnection = await failure(
      client.listRecords({ providerConfigKey: INTEGRATION, connectionId: 'nobody', model: 'Walk' }),
    );
    expect(unknownConnection).toMatchObject({ status: 404, code: 'connection_not_found' });
    const unknownIntegration = await failure(
      client.listRecords({ providerConfigKey: 'nope', connectionId: CONNECTION, model: 'Walk' }),
    );
    expect(unknownIntegration.status).toBe(404);
  });

  it('keeps environments apart', async () => {
    const prod = app.client(app.prodKey);
    expect(
      await prod.listRecords({
        providerConfigKey: INTEGRATION,
        connectionId: CONNECTION,
        model: 'Walk',
      }),
    ).toEqual({ records: [], next_cursor: null });
    const devOnly = await failure(
      prod.listRecords({ providerConfigKey: INTEGRATION, connectionId: 'dev-only', model: 'Walk' }),
    );
    expect(devOnly.status).toBe(404);
  });

  it('serves the deprecated getRecords with offset pages and a Deprecation header', async () => {
    await save(
      'Legacy',
      ['c', 'a', 'e', 'b', 'd'].map((id) => prepared(id)),
    );
    const get = (extra: Record<string, unknown>) =>
      client.getRecords<Contact>({
        providerConfigKey: INTEGRATION,
        connectionId: CONNECTION,
        model: 'Legacy',
        ...extra,
      });
    expect((await get({})).map((record) => record.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect((await get({ offset: 1, limit: 2 })).map((record) => record.id)).toEqual(['b', 'c']);
    expect((await get({ order: 'desc', limit: 2 })).map((record) => record.id)).toEqual(['e', 'd']);
    const byCreation = await get({ sortBy: 'created_at', offset: 4 });
    expect(byCreation).toHaveLength(1);
    expect(byCreation[0]?._service_metadata.last_action).toBe('ADDED');
    expect((await failure(get({ sortBy: 'colour' }))).errors.map((item) => item.path)).toEqual([
      'sort_by',
    ]);

    const response = await rawGet('/sync/records?model=Legacy&limit=1');
    expect(response.status).toBe(200);
    expect(response.headers.deprecation).toMatch(/^@\d+$/);
    expect(response.headers.link).toBe('</records>; rel="successor-version"');
    expect((JSON.parse(response.body) as unknown[]).length).toBe(1);

    const docs = JSON.parse((await rawGet('/docs/openapi.json')).body) as {
      paths: Record<
        string,
        { get?: { deprecated?: boolean; parameters?: Array<{ name: string }> } }
      >;
    };
    expect(docs.paths['/sync/records']?.get?.deprecated).toBe(true);
    expect(docs.paths['/records']?.get?.parameters?.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(['Connection-Id', 'model', 'modified_after', 'cursor', 'filter']),
    );
  });
});

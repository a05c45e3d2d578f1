/**
 * The records store with 1 KB records: `saveBatch` of new records against a plain `COPY` of the
 * same rows into the same table, re-saving unchanged records, `GET /records` pages of 100 at the
 * start, middle and end of a model of 1,000,000 records, and the full export of that model
 * without a limit (records/s and the API's peak RSS). Writes go through `RecordsService` in this
 * process; reads through the real `junction api` process.
 *
 *   npm run build && npm run bench:records
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { DataSource } from 'typeorm';
import { Client } from 'undici';
import { Junction } from '../src/client';
import { dataSourceOptions } from '../src/database/data-source-options';
import { encodeCursor } from '../src/records/record-cursor';
import { RecordsRepository } from '../src/records/records.repository';
import { type PreparedRecord, RecordsService } from '../src/records/records.service';
import {
  apiEnvironment,
  fixed,
  loadLine,
  log,
  machineLine,
  onCleanup,
  phase,
  printTable,
  processCpuMs,
  runBench,
  startApi,
  startBackends,
  summarize,
} from './common';

const INTEGRATION = 'crm';
const CONNECTION = 'bench-user';
/** Records per ingest measurement, in batches of BATCH. */
const INGEST_RECORDS = Number(process.env.BENCH_INGEST_RECORDS ?? 50_000);
const BATCH = 1_000;
/** Ingest measurements alternate COPY and saveBatch this many times (fresh models each time). */
const INGEST_ROUNDS = 2;
const BIG_MODEL = 'Big';
/** BENCH_BIG_RECORDS makes a quicker run for profiling (the figures are for 1,000,000). */
const BIG_RECORDS = Number(process.env.BENCH_BIG_RECORDS ?? 1_000_000);
const PAGE = 100;
const PAGE_REQUESTS = 200;
const PAGE_WARMUP = 20;
const TARGETS = {
  copyRatio: 0.75,
  unchangedPerSecond: 100_000,
  pageMs: 5,
  exportPerSecond: 100_000,
  rssMb: 200,
};

/** About 1 KB of JSON per record, different for every id and version. */
function record(index: number, version: number): PreparedRecord {
  const id = `rec-${index}`;
  const digest = createHash('sha256').update(`${id}:${version}`).digest('hex');
  const json = JSON.stringify({
    id,
    name: `Contact number ${index}`,
    email: `contact${index}@example.com`,
    version,
    tags: ['customer', 'newsletter', `segment-${index % 17}`],
    address: {
      street: `${index} Main Street`,
      city: 'Springfield',
      zip: String(10_000 + (index % 89_999)),
    },
    notes: digest.repeat(12),
  });
  return { id, json, hash: createHash('sha256').update(json).digest('base64') };
}

/** A text-format COPY line for the records table (tab, newline and backslash escaped). */
function copyLine(connectionId: number, model: string, item: PreparedRecord): string {
  const escape = (text: string): string =>
    text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
  return `${connectionId}\t${model}\t${escape(item.id)}\t${escape(item.json)}\t${item.hash}\tnow\tnow\t\\N\tADDED\t1\t1\n`;
}

/**
 * `COPY records FROM STDIN` with the pg driver's own protocol messages (the project does not
 * depend on pg-copy-streams): one CopyData message per batch.
 */
function copyIn(client: PgClient, chunks: readonly string[]): Promise<void> {
  const sql =
    'COPY records (connection_id, model, external_id, data, hash, first_seen_at, last_modified_at, deleted_at, last_action, sync_run_id, seen_run_id) FROM STDIN';
  interface CopyConnection {
    query(text: string): void;
    sendCopyFromChunk(chunk: Buffer): void;
    endCopyFrom(): void;
  }
  return new Promise((resolve, reject) => {
    const submittable = {
      submit: (connection: CopyConnection) => connection.query(sql),
      handleCopyInResponse: (connection: CopyConnection) => {
        for (const chunk of chunks) connection.sendCopyFromChunk(Buffer.from(chunk));
        connection.endCopyFrom();
      },
      handleCommandComplete: () => undefined,
      handleReadyForQuery: () => resolve(),
      handleError: (error: Error) => reject(error),
      handleRowDescription: () => undefined,
      handleDataRow: () => undefined,
      handleEmptyQuery: () => undefined,
    };
    void (client.query as unknown as (query: unknown) => unknown)(submittable);
  });
}

async function timed(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

interface IngestFigures {
  readonly copy: number[];
  readonly save: number[];
  readonly unchanged: number[];
  readonly unchangedSeen: number[];
}

async function measureIngest(
  records: RecordsService,
  copyClient: PgClient,
  connectionId: number,
): Promise<IngestFigures> {
  const figures: IngestFigures = { copy: [], save: [], unchanged: [], unchangedSeen: [] };
  const rows = Array.from({ length: INGEST_RECORDS }, (_unused, index) => record(index, 1));
  const batches: PreparedRecord[][] = [];
  for (let start = 0; start < rows.length; start += BATCH)
    batches.push(rows.slice(start, start + BATCH));
  const perSecond = (ms: number): number => (INGEST_RECORDS * 1000) / ms;

  for (let round = 1; round <= INGEST_ROUNDS; round += 1) {
    const copyModel = `Copy${round}`;
    const saveModel = `Save${round}`;
    const copyMs = await phase(`COPY round ${round}`, () =>
      timed(async () => {
        // Each batch its own COPY statement, as saveBatch gets its own statements per batch.
        for (const batch of batches)
          await copyIn(copyClient, [
            batch.map((item) => copyLine(connectionId, copyModel, item)).join(''),
          ]);
      }),
    );
    figures.copy.push(perSecond(copyMs));
    const saveMs = await phase(`saveBatch new round ${round}`, () =>
      timed(async () => {
        for (const batch of batches)
          await records.saveBatch({
            connectionId,
            model: saveModel,
            records: batch,
            runId: '1',
            trackSeen: true,
          });
      }),
    );
    figures.save.push(perSecond(saveMs));
    const unchangedMs = await phase(`saveBatch unchanged round ${round}`, () =>
      timed(async () => {
        for (const batch of batches) {
          const counts = await records.saveBatch({
            connectionId,
            model: saveModel,
            records: batch,
            runId: '1',
            trackSeen: true,
          });
          if (counts.unchanged !== batch.length)
            throw new Error(`Expected unchanged records, got ${JSON.stringify(counts)}`);
        }
      }),
    );
    figures.unchanged.push(perSecond(unchangedMs));
    const seenMs = await phase(`saveBatch unchanged, new run, trackSeen round ${round}`, () =>
      timed(async () => {
        for (const batch of batches)
          await records.saveBatch({
            connectionId,
            model: saveModel,
            records: batch,
            runId: String(1 + round),
            trackSeen: true,
          });
      }),
    );
    figures.unchangedSeen.push(perSecond(seenMs));
  }
  return figures;
}

/** Fills the big model in PostgreSQL itself (the ingest path is measured above). */
async function fillBigModel(admin: PgClient, connectionId: number): Promise<void> {
  await admin.query(
    `INSERT INTO records (connection_id, model, external_id, data, hash, first_seen_at, last_modified_at, last_action, sync_run_id, seen_run_id)
     SELECT $1, $2, 'big-' || g,
            jsonb_build_object('id', 'big-' || g, 'name', 'Contact number ' || g, 'email', 'contact' || g || '@example.com',
                               'tags', jsonb_build_array('customer', 'segment-' || (g % 17)), 'notes', repeat(md5(g::text), 26)),
            md5(g::text), now(), now() - ($3 - g) * interval '1 millisecond', 'ADDED', 1, 1
     FROM generate_series(1, $3) AS g`,
    [connectionId, BIG_MODEL, BIG_RECORDS],
  );
  await admin.query('VACUUM ANALYZE records');
}

/** The cursor that starts a page right after the record at `offset` (0-based) of the big model. */
async function cursorAt(admin: PgClient, connectionId: number, offset: number): Promise<string> {
  const { rows } = await admin.query<{ at: string; id: string }>(
    `SELECT to_char(last_modified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, id::text AS id
     FROM records WHERE connection_id = $1 AND model = $2 ORDER BY last_modified_at, id OFFSET $3 LIMIT 1`,
    [connectionId, BIG_MODEL, offset],
  );
  const row = rows[0];
  if (!row) throw new Error(`No record at offset ${offset}`);
  return encodeCursor({ lastModifiedAt: row.at, id: row.id });
}

/** CPU ms so far of the PostgreSQL backends serving the bench database, by pid. */
async function backendCpu(admin: PgClient): Promise<Map<number, number>> {
  const { rows } = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  const cpu = new Map<number, number>();
  for (const { pid } of rows) cpu.set(pid, processCpuMs(pid) ?? 0);
  return cpu;
}

interface CpuSplit {
  readonly service: number;
  readonly postgres: number;
  readonly client: number;
}

/** CPU ms spent by the service, its PostgreSQL backends and this process while `run` ran. */
async function withCpu<T>(
  servicePid: number,
  admin: PgClient,
  run: () => Promise<T>,
): Promise<{ result: T; cpu: CpuSplit }> {
  const serviceBefore = processCpuMs(servicePid) ?? 0;
  const backendsBefore = await backendCpu(admin);
  const clientBefore = process.cpuUsage();
  const result = await run();
  const client = process.cpuUsage(clientBefore);
  const backendsAfter = await backendCpu(admin);
  let postgres = 0;
  for (const [pid, after] of backendsAfter) postgres += after - (backendsBefore.get(pid) ?? 0);
  return {
    result,
    cpu: {
      service: (processCpuMs(servicePid) ?? 0) - serviceBefore,
      postgres,
      client: (client.user + client.system) / 1000,
    },
  };
}

function rssOf(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
    readFileSync(`/proc/${pid}/status`, 'utf8'),
  );
  return match?.[1] ? Number(match[1]) / 1024 : Number.NaN;
}

async function measurePages(
  http: Client,
  headers: Record<string, string>,
  cursors: ReadonlyArray<readonly [string, string | undefined]>,
  cpuOf: <T>(run: () => Promise<T>) => Promise<{ result: T; cpu: CpuSplit }>,
): Promise<string[][]> {
  const rows: string[][] = [];
  for (const [label, cursor] of cursors) {
    const { result, cpu } = await cpuOf(() => pageSeries(http, headers, label, cursor));
    const perRequest = (ms: number): string => fixed(ms / (PAGE_WARMUP + PAGE_REQUESTS));
    rows.push([...result, perRequest(cpu.service), perRequest(cpu.postgres)]);
  }
  return rows;
}

/** Sequential requests for one page; the latency columns of its table row. */
async function pageSeries(
  http: Client,
  headers: Record<string, string>,
  label: string,
  cursor: string | undefined,
): Promise<string[]> {
  const path = `/records?model=${BIG_MODEL}&limit=${PAGE}${cursor ? `&cursor=${cursor}` : ''}`;
  const latencies: number[] = [];
  for (let index = 0; index < PAGE_WARMUP + PAGE_REQUESTS; index += 1) {
    const started = performance.now();
    const response = await http.request({ path, method: 'GET', headers });
    const text = await response.body.text();
    const elapsed = performance.now() - started;
    if (response.statusCode !== 200)
      throw new Error(`${path} answered ${response.statusCode}: ${text.slice(0, 300)}`);
    if (index === 0) {
      const page = JSON.parse(text) as { records: unknown[] };
      if (page.records.length !== PAGE)
        throw new Error(`${label}: ${page.records.length} records instead of ${PAGE}`);
    }
    if (index >= PAGE_WARMUP) latencies.push(elapsed);
  }
  const summary = summarize(latencies);
  return [
    label,
    String(summary.count),
    fixed(summary.median),
    fixed(summary.p90),
    fixed(summary.p99),
    fixed(summary.max),
  ];
}

/**
 * Reads the whole big model without a limit and counts the records as the bytes go by. Node's
 * own HTTP client (native parser): the bench shares the 2 cores with the service and PostgreSQL.
 */
function measureExport(
  baseUrl: string,
  headers: Record<string, string>,
): Promise<{ ms: number; records: number; bytes: number }> {
  const marker = Buffer.from('"_service_metadata"');
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = httpGet(
      `${baseUrl}/records?model=${BIG_MODEL}`,
      { headers, agent: false },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`export answered ${response.statusCode}`));
          response.resume();
          return;
        }
        let records = 0;
        let bytes = 0;
        let tail = Buffer.alloc(0);
        const count = (buffer: Buffer): void => {
          for (
            let at = buffer.indexOf(marker);
            at >= 0;
            at = buffer.indexOf(marker, at + marker.length)
          )
            records += 1;
        };
        response.on('data', (chunk: Buffer) => {
          // A marker cut by the chunk boundary: only the few bytes around it are copied.
          if (tail.length > 0) count(Buffer.concat([tail, chunk.subarray(0, marker.length - 1)]));
          count(chunk);
          bytes += chunk.length;
          tail = Buffer.from(chunk.subarray(Math.max(0, chunk.length - marker.length + 1)));
        });
        response.on('end', () => resolve({ ms: performance.now() - started, records, bytes }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
}

async function main(): Promise<void> {
  process.stdout.write(`Machine: ${machineLine()}\nLoad average at start: ${loadLine()}\n\n`);
  const workDir = mkdtempSync(join(tmpdir(), 'junction-bench-records-'));
  onCleanup('work folder', () => rmSync(workDir, { recursive: true, force: true }));
  const backends = await startBackends(workDir);
  const { env, secretKey } = apiEnvironment(backends);
  const api = await startApi(
    'junction api',
    { ...env, LOG_LEVEL: 'warn' },
    join(workDir, 'api.log'),
  );
  const servicePid = api.service.child.pid ?? 0;

  const client = new Junction({ secretKey, host: api.baseUrl });
  await client.createIntegration({ provider: 'stripe', provider_config_key: INTEGRATION });
  const connection = await client.importConnection({
    provider_config_key: INTEGRATION,
    connection_id: CONNECTION,
    api_key: 'sk_bench',
  });

  const dataSource = new DataSource(dataSourceOptions({ url: backends.databaseUrl, poolSize: 4 }));
  await dataSource.initialize();
  onCleanup('bench data source', () => dataSource.destroy());
  const records = new RecordsService(new RecordsRepository(dataSource));
  const admin = new PgClient({ connectionString: backends.databaseUrl });
  await admin.connect();
  onCleanup('bench admin client', () => admin.end());

  log(
    `ingest: ${INGEST_RECORDS} records of about 1 KB, batches of ${BATCH}, ${INGEST_ROUNDS} rounds`,
  );
  const ingest = await measureIngest(records, admin, connection.id);
  const total = (values: readonly number[]): number =>
    values.reduce((sum, value) => sum + value, 0);
  const copyRate = total(ingest.copy) / ingest.copy.length;
  const saveRate = total(ingest.save) / ingest.save.length;
  process.stdout.write(
    `Ingest (${INGEST_RECORDS} records of ${record(0, 1).json.length} bytes per measurement, batches of ${BATCH}; records/s per round)\n\n`,
  );
  printTable([
    ['', ...ingest.copy.map((_value, index) => `round ${index + 1}`), 'mean', 'target'],
    [
      'COPY into records (reference)',
      ...ingest.copy.map((value) => fixed(value, 0)),
      fixed(copyRate, 0),
      '',
    ],
    [
      'saveBatch, new records',
      ...ingest.save.map((value) => fixed(value, 0)),
      fixed(saveRate, 0),
      '',
    ],
    [
      'saveBatch / COPY',
      ...ingest.save.map((value, index) => fixed(value / (ingest.copy[index] ?? Number.NaN))),
      fixed(saveRate / copyRate),
      `>= ${TARGETS.copyRatio}`,
    ],
    [
      'saveBatch, unchanged, same run',
      ...ingest.unchanged.map((value) => fixed(value, 0)),
      fixed(total(ingest.unchanged) / ingest.unchanged.length, 0),
      `>= ${TARGETS.unchangedPerSecond}`,
    ],
    [
      'saveBatch, unchanged, new run (trackSeen)',
      ...ingest.unchangedSeen.map((value) => fixed(value, 0)),
      fixed(total(ingest.unchangedSeen) / ingest.unchangedSeen.length, 0),
      '',
    ],
  ]);

  log(`filling model ${BIG_MODEL} with ${BIG_RECORDS} records in PostgreSQL`);
  const fillMs = await phase('fill big model', () =>
    timed(() => fillBigModel(admin, connection.id)),
  );
  log(`filled in ${fixed(fillMs / 1000, 1)} s`);
  const headers = {
    authorization: `Bearer ${secretKey}`,
    'connection-id': CONNECTION,
    'provider-config-key': INTEGRATION,
  };
  const http = new Client(api.baseUrl);
  onCleanup('HTTP client', () => http.close());
  const cursors: Array<readonly [string, string | undefined]> = [
    ['start (no cursor)', undefined],
    ['middle (after record 500,000)', await cursorAt(admin, connection.id, BIG_RECORDS / 2 - 1)],
    ['end (last 100 records)', await cursorAt(admin, connection.id, BIG_RECORDS - PAGE - 1)],
  ];
  const cpuOf = <T>(run: () => Promise<T>) => withCpu(servicePid, admin, run);
  const pageRows = await phase('pages', () => measurePages(http, headers, cursors, cpuOf));
  process.stdout.write(
    `\nGET /records pages of ${PAGE} in a model of ${BIG_RECORDS} records (ms, ${PAGE_REQUESTS} sequential requests each after ${PAGE_WARMUP} warm-up; target median < ${TARGETS.pageMs} ms)\n\n`,
  );
  printTable([
    ['', 'requests', 'median', 'p90', 'p99', 'max', 'API CPU/req', 'PostgreSQL CPU/req'],
    ...pageRows,
  ]);

  const rssBefore = rssOf(servicePid, 'VmRSS');
  const hwmBefore = rssOf(servicePid, 'VmHWM');
  const { result: exported, cpu } = await phase('export', () =>
    cpuOf(() => measureExport(api.baseUrl, headers)),
  );
  const hwmAfter = rssOf(servicePid, 'VmHWM');
  if (exported.records !== BIG_RECORDS)
    throw new Error(`The export held ${exported.records} records instead of ${BIG_RECORDS}`);
  process.stdout.write(
    `\nGET /records without a limit, ${BIG_RECORDS} records (target >= ${TARGETS.exportPerSecond} records/s, peak RSS < ${TARGETS.rssMb} MB)\n\n`,
  );
  printTable([
    ['', 'value'],
    ['time (s)', fixed(exported.ms / 1000)],
    ['records/s', fixed((exported.records * 1000) / exported.ms, 0)],
    ['MB/s', fixed(exported.bytes / 1024 ** 2 / (exported.ms / 1000), 1)],
    ['body (MB)', fixed(exported.bytes / 1024 ** 2, 0)],
    ['API CPU (s)', fixed(cpu.service / 1000)],
    ['PostgreSQL backends CPU (s)', fixed(cpu.postgres / 1000)],
    ['bench client CPU (s)', fixed(cpu.client / 1000)],
    ['API RSS before (MB)', fixed(rssBefore, 0)],
    ['API peak RSS before the export (VmHWM, MB)', fixed(hwmBefore, 0)],
    ['API peak RSS after the export (VmHWM, MB)', fixed(hwmAfter, 0)],
  ]);
  process.stdout.write(`\nLoad average at end: ${loadLine()}\n`);
  await api.stop();
}

runBench(main);

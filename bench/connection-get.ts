/**
 * `GET /connection/:connectionId?provider_config_key=gh` (the connection with its credentials)
 * for OAuth 2 connections whose token is still valid (no refresh), against the real `junction api`
 * process on loopback with LOG_LEVEL=info (BENCH_LOG_LEVEL overrides it). Two scenarios: 10 connections stored, then 10,000;
 * each request asks for a random one of them.
 *
 *   npm run build && npm run bench:connection
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client as PgClient } from 'pg';
import type { DataSource } from 'typeorm';
import { Client, Pool } from 'undici';
import { ConnectionsRepository } from '../src/connections/connections.repository';
import { ChangeFeed } from '../src/database/change-feed';
import { debianTool } from './tools';
import { runWrk, wrkScriptFile } from './wrk';
import {
  apiEnvironment,
  concurrent,
  fixed,
  loadLine,
  log,
  machineLine,
  machineTicks,
  type MachineTicks,
  phase,
  onCleanup,
  printTable,
  processCpuMs,
  ROW_HEADER,
  rowCells,
  runBench,
  sequential,
  startApi,
  startBackends,
  threadCpu,
  type ApiService,
  type Row,
} from './common';

const INTEGRATION = 'gh';
const WARMUP_REQUESTS = 300;
const MEASURED_REQUESTS = 3_000;
const CONCURRENCY = 32;
const CONCURRENT_SECONDS = 8;
/** Unmeasured rounds of CONCURRENCY parallel requests before the concurrent measurement. */
const CONCURRENT_WARMUP_ROUNDS = 20;
const SCENARIOS = [10, 10_000] as const;
/** Parallel `POST /connection` calls while importing the connections of the larger scenario. */
const IMPORT_CONCURRENCY = 16;
/** Every n-th response body is parsed and checked against the requested connection. */
const CHECK_EVERY = 20;
/** Idle time before the first request, over which the service's background CPU is measured. */
const IDLE_SECONDS = 2;
/** Targets given for this endpoint. */
const TARGET_MEDIAN_MS = 2;
const TARGET_PER_SECOND = 3_000;

const connectionId = (n: number): string => `user-${n}`;
const accessToken = (n: number): string => `tok-${n}`;

// ---------------------------------------------------------------------------------------------
// Where the CPU time goes: the service's threads, its PostgreSQL backends, the client, the machine

interface CpuSnapshot {
  /** Service threads by id, ms (the thread whose id is the pid runs the JavaScript). */
  readonly serviceThreads: Map<number, number>;
  /** PostgreSQL backends serving the service's database by pid, ms. */
  readonly backends: Map<number, number>;
  readonly client: NodeJS.CpuUsage;
  /** Whole machine, clock ticks (busy: user, nice, system, irq, softirq). */
  readonly machine?: MachineTicks;
}

async function cpuSnapshot(servicePid: number, admin: PgClient): Promise<CpuSnapshot> {
  const { rows } = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  const backends = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = processCpuMs(pid);
    if (ms !== undefined) backends.set(pid, ms);
  }
  return {
    serviceThreads: threadCpu(servicePid),
    backends,
    client: process.cpuUsage(),
    machine: machineTicks(),
  };
}

/** Sum of what each key used between two readings (keys that appeared since count from 0). */
function delta(before: Map<number, number>, after: Map<number, number>): Map<number, number> {
  const used = new Map<number, number>();
  for (const [key, ms] of after) used.set(key, ms - (before.get(key) ?? 0));
  return used;
}

const sum = (values: Iterable<number>): number => {
  let total = 0;
  for (const value of values) total += value;
  return total;
};

/** One line: CPU per request of each party between two snapshots. */
function cpuNote(
  servicePid: number,
  before: CpuSnapshot,
  after: CpuSnapshot,
  requests: number,
  elapsedMs: number,
  /** The load generator's CPU per request when it is another process (wrk). */
  childClientMs?: number,
): string {
  const perRequest = (ms: number): string => fixed(ms / requests);
  const threads = delta(before.serviceThreads, after.serviceThreads);
  const main = threads.get(servicePid) ?? Number.NaN;
  const others = [...threads.entries()]
    .filter(([tid]) => tid !== servicePid)
    .map(([, ms]) => ms)
    .sort((a, b) => b - a);
  const backends = sum(delta(before.backends, after.backends).values());
  const client =
    childClientMs !== undefined
      ? childClientMs * requests
      : (after.client.user - before.client.user + after.client.system - before.client.system) /
        1000;
  let machine = '';
  if (before.machine && after.machine) {
    const busy = after.machine.busy - before.machine.busy;
    const total = after.machine.total - before.machine.total;
    const steal = after.machine.steal - before.machine.steal;
    machine =
      `; whole machine ${perRequest(busy * 10)} ms per request, ${fixed((100 * busy) / total, 0)} % busy` +
      ` (steal ${fixed((100 * steal) / total, 0)} %)`;
  }
  return (
    `CPU ms per request: service ${perRequest(main + sum(others))} = main (JavaScript) thread ${perRequest(main)} ` +
    `(busy ${fixed((100 * main) / elapsedMs, 0)} % of the time) + its ${others.length} other threads ${perRequest(sum(others))} ` +
    `(busiest ${others.slice(0, 3).map(perRequest).join(', ')}); ` +
    `its PostgreSQL backends ${perRequest(backends)}; ${childClientMs === undefined ? 'bench client' : 'wrk'} ${perRequest(client)}${machine}`
  );
}

// ---------------------------------------------------------------------------------------------
// Requests

/** Sends GETs for random stored connections; every response must be 200, a sample is checked. */
class ConnectionGetter {
  sent = 0;
  checked = 0;

  constructor(
    private readonly headers: Record<string, string>,
    private readonly stored: number,
  ) {}

  /** One request through `dispatcher` for a random connection among those stored. */
  async get(dispatcher: Client | Pool): Promise<void> {
    const n = 1 + Math.floor(Math.random() * this.stored);
    const text = await this.request(dispatcher, n);
    if (this.sent % CHECK_EVERY === 0) this.check(n, text);
  }

  /**
   * Every stored connection once, `parallel` at a time, each body checked: the steady state of
   * a service that has served its connections before (each process's connection cache holds
   * them), which a few thousand random requests among 10,000 would not reach.
   */
  async readAll(dispatcher: Pool, parallel: number): Promise<void> {
    let next = 1;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next <= this.stored) {
          const n = next;
          next += 1;
          this.check(n, await this.request(dispatcher, n));
        }
      }),
    );
  }

  /** GET of connection `n`; the body, which must come with a 200. */
  private async request(dispatcher: Client | Pool, n: number): Promise<string> {
    const path = `/connection/${connectionId(n)}?provider_config_key=${INTEGRATION}`;
    const { statusCode, body } = await dispatcher.request({
      path,
      method: 'GET',
      headers: this.headers,
    });
    const text = await body.text();
    this.sent += 1;
    if (statusCode !== 200)
      throw new Error(`GET ${path} answered ${statusCode}: ${text.slice(0, 300)}`);
    return text;
  }

  /** The body names the requested connection and carries its own access token. */
  check(n: number, text: string): void {
    const parsed = JSON.parse(text) as {
      connection_id?: unknown;
      provider_config_key?: unknown;
      credentials?: { type?: unknown; access_token?: unknown; refresh_token?: unknown };
    };
    const credentials = parsed.credentials;
    if (
      parsed.connection_id !== connectionId(n) ||
      parsed.provider_config_key !== INTEGRATION ||
      credentials?.type !== 'OAUTH2' ||
      credentials.access_token !== accessToken(n) ||
      credentials.refresh_token !== undefined
    ) {
      throw new Error(
        `GET /connection/${connectionId(n)} returned another connection or credentials: ${text.slice(0, 400)}`,
      );
    }
    this.checked += 1;
  }
}

async function post(
  dispatcher: Client | Pool,
  headers: Record<string, string>,
  path: string,
  body: unknown,
): Promise<void> {
  const response = await dispatcher.request({
    path,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode !== 201 && response.statusCode !== 200)
    throw new Error(`POST ${path} answered ${response.statusCode}: ${text.slice(0, 300)}`);
}

/** Imports connections `from`..`to` (inclusive) with `parallel` concurrent `POST /connection`. */
async function importConnections(
  baseUrl: string,
  headers: Record<string, string>,
  from: number,
  to: number,
  parallel: number,
): Promise<void> {
  const expiresAt = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
  const pool = new Pool(baseUrl, { connections: parallel, pipelining: 1 });
  let next = from;
  try {
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next <= to) {
          const n = next;
          next += 1;
          await post(pool, headers, '/connection', {
            provider_config_key: INTEGRATION,
            connection_id: connectionId(n),
            access_token: accessToken(n),
            refresh_token: `rt-${n}`,
            expires_at: expiresAt,
          });
        }
      }),
    );
  } finally {
    await pool.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Reference: the service's query sent straight to PostgreSQL

/**
 * The SQL and parameters `ConnectionsRepository.find` sends for one connection, captured by
 * running the real repository against a stand-in DataSource (so the bench never copies the SQL).
 */
async function capturedFindQuery(
  environmentId: number,
  connection: string,
): Promise<{ text: string; values: unknown[] } | undefined> {
  let captured: { text: string; values: unknown[] } | undefined;
  const record = (text: string, values: unknown[]) => {
    captured ??= { text, values };
    return Promise.resolve({ rows: [] });
  };
  // `find` sends a named prepared statement through the pool behind TypeORM (`preparedQuery`).
  const recorder = {
    query: (text: string, values: unknown[]) => record(text, values).then(() => []),
    driver: {
      master: {
        query: (config: { text: string; values: unknown[] }) => record(config.text, config.values),
      },
    },
  } as unknown as DataSource;
  try {
    await new ConnectionsRepository(recorder, new ChangeFeed({ embedded: true })).find(
      environmentId,
      INTEGRATION,
      connection,
    );
  } catch {
    return undefined;
  }
  return captured;
}

/**
 * `ConnectionsRepository.find` for random connections with `pg` on one connection, sequentially:
 * as an unnamed statement (parsed and planned on every call, as `DataSource.query` sends it) and
 * as a named prepared statement. Reports latency and the backend's CPU per query.
 */
async function directQueries(
  databaseUrl: string,
  stored: number,
): Promise<{ rows: Row[]; notes: string[] }> {
  const client = new PgClient({ connectionString: databaseUrl });
  await client.connect();
  try {
    const environment = await client.query<{ id: number }>(
      `SELECT id FROM environments WHERE name = 'dev'`,
    );
    const environmentId = environment.rows[0]?.id;
    const backend = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backendPid = backend.rows[0]?.pid;
    const sample =
      environmentId === undefined
        ? undefined
        : await capturedFindQuery(environmentId, connectionId(1));
    if (!sample || backendPid === undefined || sample.values.length !== 3)
      return {
        rows: [],
        notes: ['reference skipped: could not capture the query ConnectionsRepository.find sends'],
      };
    const rows: Row[] = [];
    const notes: string[] = [];
    for (const named of [false, true]) {
      const label = named
        ? 'ConnectionsRepository.find SQL, pg direct, named prepared statement'
        : 'ConnectionsRepository.find SQL, pg direct, unnamed (as DataSource.query sends it)';
      const call = async (): Promise<void> => {
        const n = 1 + Math.floor(Math.random() * stored);
        const values = [sample.values[0], sample.values[1], connectionId(n)];
        const result = await client.query(
          named
            ? { name: 'bench_connection_find', text: sample.text, values }
            : { text: sample.text, values },
        );
        if (result.rowCount !== 1)
          throw new Error(`${label}: ${result.rowCount} rows for ${connectionId(n)}`);
      };
      for (let index = 0; index < WARMUP_REQUESTS; index += 1) await call();
      const before = processCpuMs(backendPid);
      const row = await sequential(label, call, 0, MEASURED_REQUESTS);
      const after = processCpuMs(backendPid);
      rows.push(row);
      if (before !== undefined && after !== undefined)
        notes.push(
          `${label}: PostgreSQL backend CPU ${fixed((after - before) / MEASURED_REQUESTS)} ms per query`,
        );
    }
    return { rows, notes };
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Scenarios

interface ScenarioResult {
  readonly stored: number;
  readonly sequential: Row;
  readonly concurrent: Row;
  /** The same two loads from wrk, when it is available. */
  readonly wrkSequential?: Row;
  readonly wrkConcurrent?: Row;
  readonly notes: string[];
}

/** wrk's requests: a random stored connection each, with the key; `STORED` and `KEY` from env. */
const WRK_REQUEST_LUA = `
local key = os.getenv("KEY")
local stored = tonumber(os.getenv("STORED"))
math.randomseed(os.time())
request = function()
  local n = math.random(1, stored)
  return wrk.format("GET", "/connection/user-" .. n .. "?provider_config_key=${INTEGRATION}",
    { ["Authorization"] = "Bearer " .. key })
end
`;

/** wrk at concurrency 1 and ${CONCURRENCY}, with the CPU notes; every response must be 200. */
async function measureWithWrk(
  wrk: string,
  api: ApiService,
  headers: Record<string, string>,
  stored: number,
  admin: PgClient,
  workDir: string,
): Promise<{ sequential: Row; concurrent: Row; notes: string[] }> {
  const pid = api.service.child.pid;
  if (pid === undefined) throw new Error('The service has no pid');
  const label = `${stored.toLocaleString('en-US')} connections stored`;
  const notes: string[] = [];
  const rows: Row[] = [];
  for (const connections of [1, CONCURRENCY]) {
    const name = `${label}, wrk, concurrency ${connections}`;
    log(`${name} for ${CONCURRENT_SECONDS} s`);
    const before = await cpuSnapshot(pid, admin);
    const started = performance.now();
    const result = await phase(name, () =>
      runWrk({
        wrk,
        baseUrl: api.baseUrl,
        connections,
        seconds: CONCURRENT_SECONDS,
        requestLua: WRK_REQUEST_LUA,
        scriptFile: wrkScriptFile(workDir, 'connection-get'),
        env: { KEY: (headers.authorization ?? '').replace(/^Bearer /, ''), STORED: String(stored) },
        label,
        servicePid: pid,
      }),
    );
    const elapsed = performance.now() - started;
    if (result.failedStatus > 0 || result.socketErrors > 0)
      throw new Error(
        `${name}: ${result.failedStatus} responses of 400 or more, ${result.socketErrors} socket errors`,
      );
    rows.push(result.row);
    notes.push(
      `wrk, concurrency ${connections}: ${cpuNote(pid, before, await cpuSnapshot(pid, admin), result.row.summary.count, elapsed, result.clientCpuMs)}`,
    );
  }
  const [sequentialRow, concurrentRow] = rows as [Row, Row];
  return { sequential: sequentialRow, concurrent: concurrentRow, notes };
}

/** Warm-up + sequential, then concurrency 32, against `api` with `stored` connections. */
async function measure(
  api: ApiService,
  headers: Record<string, string>,
  stored: number,
  admin: PgClient,
): Promise<ScenarioResult> {
  const pid = api.service.child.pid;
  if (pid === undefined) throw new Error('The service has no pid');
  const client = new Client(api.baseUrl, { pipelining: 1, keepAliveTimeout: 60_000 });
  const pool = new Pool(api.baseUrl, {
    connections: CONCURRENCY,
    pipelining: 1,
    keepAliveTimeout: 60_000,
  });
  const getter = new ConnectionGetter(headers, stored);
  const notes: string[] = [];
  const label = `${stored.toLocaleString('en-US')} connections stored`;
  try {
    // One full check first, and the size of what comes back.
    const first = await client.request({
      path: `/connection/${connectionId(stored)}?provider_config_key=${INTEGRATION}`,
      method: 'GET',
      headers,
    });
    const firstBody = await first.body.text();
    if (first.statusCode !== 200)
      throw new Error(`GET /connection/${connectionId(stored)} answered ${first.statusCode}`);
    getter.check(stored, firstBody);
    notes.push(`response body: ${Buffer.byteLength(firstBody)} bytes, e.g. ${firstBody}`);

    const idleBefore = processCpuMs(pid);
    await sleep(IDLE_SECONDS * 1000);
    const idleAfter = processCpuMs(pid);
    if (idleBefore !== undefined && idleAfter !== undefined)
      notes.push(
        `service CPU while idle (${IDLE_SECONDS} s, no requests): ${fixed((idleAfter - idleBefore) / IDLE_SECONDS, 0)} ms/s`,
      );

    log(
      `${label}: every stored connection read once (warm-up), then ${WARMUP_REQUESTS} warm-up + ${MEASURED_REQUESTS} sequential GETs`,
    );
    await getter.readAll(pool, CONCURRENCY);
    for (let index = 0; index < WARMUP_REQUESTS; index += 1) await getter.get(client);
    let before = await cpuSnapshot(pid, admin);
    let started = performance.now();
    const sequentialRow = await phase(`${label}, sequential`, () =>
      sequential(label, () => getter.get(client), 0, MEASURED_REQUESTS, pid),
    );
    let elapsed = performance.now() - started;
    notes.push(
      `concurrency 1: ${cpuNote(pid, before, await cpuSnapshot(pid, admin), MEASURED_REQUESTS, elapsed)}`,
    );

    log(`${label}: concurrency ${CONCURRENCY} for ${CONCURRENT_SECONDS} s`);
    for (let round = 0; round < CONCURRENT_WARMUP_ROUNDS; round += 1)
      await Promise.all(Array.from({ length: CONCURRENCY }, () => getter.get(pool)));
    before = await cpuSnapshot(pid, admin);
    started = performance.now();
    const concurrentRow = await phase(`${label}, concurrency ${CONCURRENCY}`, () =>
      concurrent(label, () => getter.get(pool), CONCURRENCY, CONCURRENT_SECONDS, pid, 0),
    );
    elapsed = performance.now() - started;
    notes.push(
      `concurrency ${CONCURRENCY}: ${cpuNote(pid, before, await cpuSnapshot(pid, admin), concurrentRow.summary.count, elapsed)}`,
    );
    notes.push(
      `${getter.sent} GETs in all, every one 200; ${getter.checked} response bodies checked (connection_id, access_token)`,
    );
    return { stored, sequential: sequentialRow, concurrent: concurrentRow, notes };
  } finally {
    await client.close();
    await pool.close();
  }
}

/** VACUUM ANALYZE, so autovacuum does not start in the middle of a measurement; the row count. */
async function settle(admin: PgClient): Promise<number> {
  await admin.query('VACUUM ANALYZE connections');
  await admin.query('VACUUM ANALYZE integrations');
  const { rows } = await admin.query<{ count: string }>('SELECT count(*) FROM connections');
  return Number(rows[0]?.count ?? 0);
}

/** Request log lines for GET /connection/... the service wrote, and its exit code. */
async function requestLogNote(api: ApiService, label: string): Promise<string> {
  const output = api.service.output();
  const lines = output
    .split('\n')
    .filter((line) => line.includes('"url":"/connection/user-')).length;
  return (
    `${label}: the service wrote ${lines} request log lines for GET /connection/... ` +
    `(${fixed(Buffer.byteLength(output) / 1024 / 1024, 1)} MiB of output in all), exit code ${await api.service.exited}`
  );
}

async function main(): Promise<void> {
  const machine = machineLine();
  const loadAtStart = loadLine();
  log(`machine: ${machine}`);
  const workDir = mkdtempSync(join(tmpdir(), 'junction-bench-'));
  onCleanup('bench work folder', () => rmSync(workDir, { recursive: true, force: true }));

  const wrk = debianTool('wrk', 'wrk');
  log(wrk.note);
  const backends = await startBackends(workDir);
  const { env, secretKey } = apiEnvironment(backends, 'b1');
  // LOG_LEVEL=info: request logging is part of the real cost. BENCH_LOG_LEVEL=warn measures without it.
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info';
  const serviceEnv = { ...env, LOG_LEVEL: logLevel };
  const headers = { authorization: `Bearer ${secretKey}` };

  const admin = new PgClient({ connectionString: backends.databaseUrl });
  await admin.connect();
  onCleanup('PostgreSQL admin client', () => admin.end());

  const results: ScenarioResult[] = [];
  const notes: string[] = [];
  let references: { rows: Row[]; notes: string[] } = { rows: [], notes: [] };
  let stored = 0;
  for (const [index, wanted] of SCENARIOS.entries()) {
    const name = `scenario ${String.fromCharCode(97 + index)}`;
    // A fresh service process per scenario, so both start from the same state.
    const api = await startApi(
      `junction api (${name})`,
      serviceEnv,
      join(workDir, `api-${wanted}.log`),
    );
    try {
      if (stored === 0) {
        // Migrations ran at start-up; create the integration and the first connections.
        const setup = new Client(api.baseUrl);
        try {
          await post(setup, headers, '/config', {
            provider: 'github',
            provider_config_key: INTEGRATION,
            oauth_client_id: 'id',
            oauth_client_secret: 'secret',
          });
        } finally {
          await setup.close();
        }
        await importConnections(api.baseUrl, headers, 1, wanted, IMPORT_CONCURRENCY);
        stored = wanted;
      }
      const count = await settle(admin);
      if (count !== wanted)
        throw new Error(`${count} connections in the database, expected ${wanted}`);
      const measured = await measure(api, headers, wanted, admin);
      if (wrk.path) {
        const byWrk = await measureWithWrk(wrk.path, api, headers, wanted, admin, workDir);
        results.push({
          ...measured,
          wrkSequential: byWrk.sequential,
          wrkConcurrent: byWrk.concurrent,
          notes: [...measured.notes, ...byWrk.notes],
        });
      } else {
        results.push(measured);
      }
      if (index === SCENARIOS.length - 1) {
        log(`reference: the repository's query sent directly with pg (${wanted} stored)`);
        references = await directQueries(backends.databaseUrl, wanted);
      }

      const nextSize = SCENARIOS[index + 1];
      if (nextSize !== undefined) {
        log(
          `importing connections ${stored + 1}..${nextSize} with ${IMPORT_CONCURRENCY} parallel POST /connection`,
        );
        const started = performance.now();
        await importConnections(api.baseUrl, headers, stored + 1, nextSize, IMPORT_CONCURRENCY);
        const seconds = (performance.now() - started) / 1000;
        const imported = nextSize - stored;
        const note =
          `import of ${imported} connections over HTTP (${IMPORT_CONCURRENCY} parallel POST /connection): ` +
          `${fixed(seconds, 1)} s, ${fixed(imported / seconds, 0)} connections/s`;
        notes.push(note);
        log(note);
        stored = nextSize;
      }
    } finally {
      await api.stop();
    }
    notes.push(await requestLogNote(api, `${name} (${wanted} stored)`));
  }

  process.stdout.write(
    `\nMachine: ${machine}\nLoad average (1/5/15 min): ${loadAtStart} at start, ${loadLine()} at end\n`,
  );
  process.stdout.write(
    `\nGET /connection/:id?provider_config_key=${INTEGRATION}, random connection among those stored, ` +
      `OAuth 2 token valid (no refresh), LOG_LEVEL=${logLevel}. A fresh service process per scenario.\n`,
  );
  process.stdout.write(
    `\nSequential (concurrency 1, one keep-alive connection; ${WARMUP_REQUESTS} warm-up + ${MEASURED_REQUESTS}), latency in ms:\n`,
  );
  printTable([ROW_HEADER, ...results.map((result) => rowCells(result.sequential))]);
  process.stdout.write(
    `\nConcurrency ${CONCURRENCY} for ${CONCURRENT_SECONDS} s (${CONCURRENCY} keep-alive connections, ` +
      `after ${CONCURRENT_WARMUP_ROUNDS} unmeasured rounds), latency in ms:\n`,
  );
  printTable([ROW_HEADER, ...results.map((result) => rowCells(result.concurrent))]);
  const byWrk = results.filter((result) => result.wrkSequential && result.wrkConcurrent);
  if (byWrk.length > 0) {
    process.stdout.write(
      `\nThe same loads from wrk (C, one thread; ${CONCURRENT_SECONDS} s each at concurrency 1 and ${CONCURRENCY}), latency in ms:\n`,
    );
    printTable([
      ROW_HEADER,
      ...byWrk.flatMap((result) => [
        rowCells({
          ...(result.wrkSequential as Row),
          label: `${result.wrkSequential?.label}, c=1`,
        }),
        rowCells({
          ...(result.wrkConcurrent as Row),
          label: `${result.wrkConcurrent?.label}, c=${CONCURRENCY}`,
        }),
      ]),
    ]);
  } else {
    process.stdout.write(`\n${wrk.note}: no wrk figures\n`);
  }
  if (references.rows.length > 0) {
    process.stdout.write(
      `\nReference: the service's query sent directly with pg, sequential, one connection, ` +
        `${SCENARIOS[SCENARIOS.length - 1]} stored, latency in ms:\n`,
    );
    printTable([ROW_HEADER, ...references.rows.map(rowCells)]);
  }
  process.stdout.write('\n');
  for (const note of references.notes) process.stdout.write(`${note}\n`);
  for (const result of results) {
    for (const note of result.notes) process.stdout.write(`${result.stored} stored: ${note}\n`);
  }
  for (const note of notes) process.stdout.write(`${note}\n`);

  process.stdout.write(
    `\nTargets (${byWrk.length > 0 ? 'wrk figures; the Node client costs the service a share of the 2 cores' : 'Node client figures'}):\n`,
  );
  for (const result of results) {
    const medianMs = (result.wrkSequential ?? result.sequential).summary.median;
    const perSecond = (result.wrkConcurrent ?? result.concurrent).perSecond;
    process.stdout.write(
      `  ${result.stored} stored: median at concurrency 1 ${fixed(medianMs)} ms (< ${TARGET_MEDIAN_MS}: ${medianMs < TARGET_MEDIAN_MS ? 'met' : 'NOT met'}); ` +
        `${fixed(perSecond, 0)} req/s at concurrency ${CONCURRENCY} (>= ${TARGET_PER_SECOND}: ${perSecond >= TARGET_PER_SECOND ? 'met' : 'NOT met'})\n`,
    );
  }
  const [small, large] = results;
  if (small && large) {
    process.stdout.write(
      `  ${large.stored} vs ${small.stored} stored: median ${fixed((large.wrkSequential ?? large.sequential).summary.median / (small.wrkSequential ?? small.sequential).summary.median)}x, ` +
        `req/s at concurrency ${CONCURRENCY} ${fixed((large.wrkConcurrent ?? large.concurrent).perSecond / (small.wrkConcurrent ?? small.concurrent).perSecond)}x\n`,
    );
  }
}

runBench(main);

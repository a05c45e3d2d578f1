/**
 * Latency of `GET /environment` with a valid key, against the real `junction api` process on
 * loopback. Starts a throwaway PostgreSQL (unless DATABASE_URL) and a Temporal dev server (unless
 * TEMPORAL_ADDRESS), runs the service once with LOG_LEVEL=warn and once with LOG_LEVEL=info.
 *
 *   npm run build && npm run bench:environment
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { Client, Pool } from 'undici';
import { startDevServer } from '../src/temporal/dev-server';
import { databaseUrl } from '../test/harness/databases';
import { freePort } from '../test/harness/ports';
import { startPostgresCluster } from '../test/harness/postgres-cluster';
import {
  fixed,
  loadLine,
  log,
  machineLine,
  onCleanup,
  printTable,
  runBench,
  spawnService,
  summarize,
  tail,
  waitReady,
  type ServiceProcess,
  type Summary,
} from './common';

const WARMUP_REQUESTS = 500;
const MEASURED_REQUESTS = 5_000;
const CONCURRENCY = 16;
const CONCURRENT_SECONDS = 5;
/** Reference measurements (floor, /health, direct SQL) are smaller: they only explain the main one. */
const REFERENCE_WARMUP = 200;
const REFERENCE_REQUESTS = 2_000;
const LOG_LEVELS = ['warn', 'info'] as const;

interface Row {
  readonly label: string;
  readonly summary: Summary;
  readonly perSecond: number;
  /** CPU time of the service process per request, ms (from /proc), when known. */
  readonly serviceCpuMs?: number;
}

type Requester = (path: string) => Promise<void>;

function requester(dispatcher: Client | Pool, headers: Record<string, string>): Requester {
  return async (path) => {
    const { statusCode, body } = await dispatcher.request({ path, method: 'GET', headers });
    const text = await body.text();
    if (statusCode !== 200)
      throw new Error(`GET ${path} answered ${statusCode}: ${text.slice(0, 300)}`);
  };
}

/** utime + stime of a process in ms, from /proc (Linux); undefined elsewhere. */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the command: state is index 0, utime index 11, stime index 12 (clock ticks).
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux.
  } catch {
    return undefined;
  }
}

/** `count` sequential calls of `call`, after `warmup` unmeasured ones. */
async function sequential(
  label: string,
  call: () => Promise<void>,
  warmup: number,
  count: number,
  servicePid?: number,
): Promise<Row> {
  for (let index = 0; index < warmup; index += 1) await call();
  const cpuBefore = processCpuMs(servicePid);
  const latencies = new Array<number>(count);
  const started = performance.now();
  for (let index = 0; index < count; index += 1) {
    const before = performance.now();
    await call();
    latencies[index] = performance.now() - before;
  }
  const elapsed = performance.now() - started;
  const cpuAfter = processCpuMs(servicePid);
  return {
    label,
    summary: summarize(latencies),
    perSecond: (count * 1000) / elapsed,
    serviceCpuMs:
      cpuBefore !== undefined && cpuAfter !== undefined
        ? (cpuAfter - cpuBefore) / count
        : undefined,
  };
}

/** `CONCURRENCY` loops calling `call` for `seconds`. */
async function concurrent(
  label: string,
  call: () => Promise<void>,
  seconds: number,
  servicePid?: number,
): Promise<Row> {
  for (let round = 0; round < 20; round += 1)
    await Promise.all(Array.from({ length: CONCURRENCY }, () => call()));
  const latencies: number[] = [];
  const cpuBefore = processCpuMs(servicePid);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const before = performance.now();
        await call();
        latencies.push(performance.now() - before);
      }
    }),
  );
  const elapsed = performance.now() - started;
  const cpuAfter = processCpuMs(servicePid);
  return {
    label,
    summary: summarize(latencies),
    perSecond: (latencies.length * 1000) / elapsed,
    serviceCpuMs:
      cpuBefore !== undefined && cpuAfter !== undefined
        ? (cpuAfter - cpuBefore) / latencies.length
        : undefined,
  };
}

/** A bare `node:http` server in its own process: the floor of client + loopback + Node HTTP. */
async function bareHttpFloor(): Promise<Row> {
  const port = await freePort();
  const source = `require('node:http').createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end('{"name":"dev"}'); }).listen(${port}, '127.0.0.1', () => process.stdout.write('up\\n'));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = onCleanup('bare HTTP server', () => {
    child.kill('SIGTERM');
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`bare HTTP server exited with ${code}`)));
    });
    const client = new Client(`http://127.0.0.1:${port}`, { pipelining: 1 });
    try {
      const get = requester(client, {});
      return await sequential(
        'bare node:http server (floor)',
        () => get('/'),
        REFERENCE_WARMUP,
        REFERENCE_REQUESTS,
        child.pid,
      );
    } finally {
      await client.close();
    }
  } finally {
    await stop();
  }
}

/** The query the handler runs per request, sent straight to PostgreSQL with `pg`. */
async function directQuery(url: string): Promise<Row> {
  const client = new PgClient({ connectionString: url });
  await client.connect();
  try {
    const found = await client.query<{ id: number }>(
      `SELECT id FROM environments WHERE name = 'dev'`,
    );
    const id = found.rows[0]?.id;
    if (id === undefined) throw new Error('No dev environment in the database');
    const query = {
      name: 'bench_environment_by_id',
      text: 'SELECT id, name, secret_key_hash, webhook_url, created_at, updated_at FROM environments WHERE id = $1 LIMIT 1',
      values: [id],
    };
    return await sequential(
      'SELECT environment by id, pg direct',
      async () => {
        await client.query(query);
      },
      REFERENCE_WARMUP,
      REFERENCE_REQUESTS,
    );
  } finally {
    await client.end();
  }
}

async function startApi(
  logLevel: string,
  env: Record<string, string>,
  workDir: string,
): Promise<{ service: ServiceProcess; baseUrl: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const logFile = join(workDir, `api-${logLevel}.log`);
  const service = spawnService('api', {
    env: { ...env, PORT: String(port), LOG_LEVEL: logLevel },
    logFile,
  });
  let exitCode: number | string | undefined;
  const stop = onCleanup(`junction api (LOG_LEVEL=${logLevel})`, async () => {
    exitCode = await service.stop();
    if (exitCode !== 0)
      log(
        `junction api (LOG_LEVEL=${logLevel}) exited with ${exitCode}:\n${tail(service.output())}`,
      );
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const spawnedAt = performance.now();
  const readyAt = await waitReady(baseUrl, service, { intervalMs: 50, timeoutMs: 60_000 });
  log(
    `junction api (LOG_LEVEL=${logLevel}) ready after ${fixed(readyAt - spawnedAt, 0)} ms, pid ${service.child.pid}, log ${logFile}`,
  );
  return { service, baseUrl, stop };
}

async function main(): Promise<void> {
  const machine = machineLine();
  const loadAtStart = loadLine();
  log(`machine: ${machine}`);
  const workDir = mkdtempSync(join(tmpdir(), 'junction-bench-'));
  onCleanup('bench work folder', () => rmSync(workDir, { recursive: true, force: true }));

  let serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    log('using the PostgreSQL server of DATABASE_URL');
  } else {
    log('starting a throwaway PostgreSQL cluster');
    const cluster = await startPostgresCluster();
    onCleanup('PostgreSQL cluster', () => cluster.stop());
    serverUrl = cluster.url;
  }
  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (temporalAddress) {
    log(`using the Temporal server at ${temporalAddress}`);
  } else {
    log('starting a Temporal dev server');
    const server = await startDevServer({
      cliPath: process.env.TEMPORAL_CLI_PATH,
      databaseFile: join(workDir, 'temporal.sqlite'),
      port: await freePort(),
      uiPort: await freePort(),
    });
    onCleanup('Temporal dev server', () => server.stop());
    temporalAddress = server.address;
  }

  const database = `junction_bench_${randomBytes(6).toString('hex')}`;
  const admin = new PgClient({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  onCleanup(`database ${database}`, async () => {
    const cleanup = new PgClient({ connectionString: serverUrl });
    await cleanup.connect();
    try {
      await cleanup.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    } finally {
      await cleanup.end();
    }
  });
  const url = databaseUrl(serverUrl, database);

  const secretKey = randomBytes(30).toString('base64url'); // 40 characters.
  const env = {
    DATABASE_URL: url,
    TEMPORAL_ADDRESS: temporalAddress,
    METRICS_PORT: '0',
    JUNCTION_DEV_SECRET_KEY: secretKey,
    TEMPORAL_TASK_QUEUE: `bench-${randomBytes(4).toString('hex')}`,
    // Required in api mode: a throwaway AES-256 key (`id:base64 of 32 bytes`).
    ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
  };
  const headers = { authorization: `Bearer ${secretKey}` };

  const rows: Row[] = [];
  const concurrentRows: Row[] = [];
  const references: Row[] = [];
  const notes: string[] = [];

  for (const logLevel of LOG_LEVELS) {
    const { service, baseUrl, stop } = await startApi(logLevel, env, workDir);
    const client = new Client(baseUrl, { pipelining: 1, keepAliveTimeout: 60_000 });
    const pool = new Pool(baseUrl, {
      connections: CONCURRENCY,
      pipelining: 1,
      keepAliveTimeout: 60_000,
    });
    try {
      const get = requester(client, headers);
      const first = await client.request({ path: '/environment', method: 'GET', headers });
      const firstBody = await first.body.text();
      if (first.statusCode !== 200 || !firstBody.includes('"name":"dev"')) {
        throw new Error(`GET /environment answered ${first.statusCode}: ${firstBody}`);
      }
      log(
        `LOG_LEVEL=${logLevel}: ${WARMUP_REQUESTS} warm-up + ${MEASURED_REQUESTS} sequential GET /environment`,
      );
      rows.push(
        await sequential(
          `GET /environment, LOG_LEVEL=${logLevel}`,
          () => get('/environment'),
          WARMUP_REQUESTS,
          MEASURED_REQUESTS,
          service.child.pid,
        ),
      );
      log(`LOG_LEVEL=${logLevel}: concurrency ${CONCURRENCY} for ${CONCURRENT_SECONDS} s`);
      const getPooled = requester(pool, headers);
      concurrentRows.push(
        await concurrent(
          `GET /environment, LOG_LEVEL=${logLevel}`,
          () => getPooled('/environment'),
          CONCURRENT_SECONDS,
          service.child.pid,
        ),
      );
      if (logLevel === 'warn') {
        log('references: GET /health, direct SQL, bare node:http server');
        references.push(
          await sequential(
            'GET /health (no key, no SQL), LOG_LEVEL=warn',
            () => get('/health'),
            REFERENCE_WARMUP,
            REFERENCE_REQUESTS,
            service.child.pid,
          ),
        );
        references.push(await directQuery(url));
      }
    } finally {
      await client.close();
      await pool.close();
      await stop();
    }
    const output = service.output();
    // Request log lines carry the serialized request: `"url":"/environment"`.
    const requestLines = output
      .split('\n')
      .filter((line) => line.includes('"url":"/environment"')).length;
    notes.push(
      `LOG_LEVEL=${logLevel}: the service wrote ${requestLines} request log lines for /environment ` +
        `(${fixed(Buffer.byteLength(output) / 1024, 0)} KiB of output in all) and exited with ${await service.exited}`,
    );
    if (logLevel === 'info' && requestLines < MEASURED_REQUESTS) {
      notes.push(
        'WARNING: at LOG_LEVEL=info the service logged (almost) no requests, so the info run does not include ' +
          'the cost of request logging: is the pino-http middleware applied to the routes?',
      );
    }
  }
  references.push(await bareHttpFloor());

  const header = ['', 'requests', 'min', 'median', 'p90', 'p99', 'max', 'req/s', 'service CPU/req'];
  const toCells = (row: Row): string[] => [
    row.label,
    String(row.summary.count),
    fixed(row.summary.min),
    fixed(row.summary.median),
    fixed(row.summary.p90),
    fixed(row.summary.p99),
    fixed(row.summary.max),
    fixed(row.perSecond, 0),
    row.serviceCpuMs === undefined ? '-' : fixed(row.serviceCpuMs),
  ];
  process.stdout.write(
    `\nMachine: ${machine}\nLoad average (1/5/15 min): ${loadAtStart} at start, ${loadLine()} at end\n`,
  );
  process.stdout.write(`\nSequential (concurrency 1, one keep-alive connection), latency in ms:\n`);
  printTable([header, ...rows.map(toCells)]);
  process.stdout.write(
    `\nConcurrency ${CONCURRENCY} for ${CONCURRENT_SECONDS} s (${CONCURRENCY} keep-alive connections), latency in ms:\n`,
  );
  printTable([header, ...concurrentRows.map(toCells)]);
  process.stdout.write(`\nReferences (sequential, to explain the figures above), latency in ms:\n`);
  printTable([header, ...references.map(toCells)]);
  process.stdout.write(`\n${notes.join('\n')}\n`);
  const target = rows[0]?.summary.median ?? Number.NaN;
  process.stdout.write(
    `\nTarget: median under 2 ms at concurrency 1 (LOG_LEVEL=warn): ${fixed(target)} ms, ${target < 2 ? 'met' : 'NOT met'}\n`,
  );
}

runBench(main);

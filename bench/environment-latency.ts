/**
 * Latency of `GET /environment` with a valid key, against the real `junction api` process on
 * loopback. Starts a throwaway PostgreSQL (unless DATABASE_URL) and a Temporal dev server (unless
 * TEMPORAL_ADDRESS), runs the service once with LOG_LEVEL=warn and once with LOG_LEVEL=info.
 *
 *   npm run build && npm run bench:environment
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { Client, Pool } from 'undici';
import { freePort } from '../test/harness/ports';
import {
  apiEnvironment,
  concurrent,
  fixed,
  loadLine,
  log,
  machineLine,
  onCleanup,
  printTable,
  ROW_HEADER,
  rowCells,
  runBench,
  sequential,
  startApi,
  startBackends,
  type ApiService,
  type Row,
} from './common';

const WARMUP_REQUESTS = 500;
const MEASURED_REQUESTS = 5_000;
const CONCURRENCY = 16;
const CONCURRENT_SECONDS = 5;
/** Reference measurements (floor, /health, direct SQL) are smaller: they only explain the main one. */
const REFERENCE_WARMUP = 200;
const REFERENCE_REQUESTS = 2_000;
const LOG_LEVELS = ['warn', 'info'] as const;

type Requester = (path: string) => Promise<void>;

function requester(dispatcher: Client | Pool, headers: Record<string, string>): Requester {
  return async (path) => {
    const { statusCode, body } = await dispatcher.request({ path, method: 'GET', headers });
    const text = await body.text();
    if (statusCode !== 200)
      throw new Error(`GET ${path} answered ${statusCode}: ${text.slice(0, 300)}`);
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

function startApiAt(
  logLevel: string,
  env: Record<string, string>,
  workDir: string,
): Promise<ApiService> {
  return startApi(
    `junction api (LOG_LEVEL=${logLevel})`,
    { ...env, LOG_LEVEL: logLevel },
    join(workDir, `api-${logLevel}.log`),
  );
}

async function main(): Promise<void> {
  const machine = machineLine();
  const loadAtStart = loadLine();
  log(`machine: ${machine}`);
  const workDir = mkdtempSync(join(tmpdir(), 'junction-bench-'));
  onCleanup('bench work folder', () => rmSync(workDir, { recursive: true, force: true }));

  const backends = await startBackends(workDir);
  const url = backends.databaseUrl;
  const { env, secretKey } = apiEnvironment(backends);
  const headers = { authorization: `Bearer ${secretKey}` };

  const rows: Row[] = [];
  const concurrentRows: Row[] = [];
  const references: Row[] = [];
  const notes: string[] = [];

  for (const logLevel of LOG_LEVELS) {
    const { service, baseUrl, stop } = await startApiAt(logLevel, env, workDir);
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
          CONCURRENCY,
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
          'the cost of request logging: is the request log hook installed?',
      );
    }
  }
  references.push(await bareHttpFloor());

  process.stdout.write(
    `\nMachine: ${machine}\nLoad average (1/5/15 min): ${loadAtStart} at start, ${loadLine()} at end\n`,
  );
  process.stdout.write(`\nSequential (concurrency 1, one keep-alive connection), latency in ms:\n`);
  printTable([ROW_HEADER, ...rows.map(rowCells)]);
  process.stdout.write(
    `\nConcurrency ${CONCURRENCY} for ${CONCURRENT_SECONDS} s (${CONCURRENCY} keep-alive connections), latency in ms:\n`,
  );
  printTable([ROW_HEADER, ...concurrentRows.map(rowCells)]);
  process.stdout.write(`\nReferences (sequential, to explain the figures above), latency in ms:\n`);
  printTable([ROW_HEADER, ...references.map(rowCells)]);
  process.stdout.write(`\n${notes.join('\n')}\n`);
  const target = rows[0]?.summary.median ?? Number.NaN;
  process.stdout.write(
    `\nTarget: median under 2 ms at concurrency 1 (LOG_LEVEL=warn): ${fixed(target)} ms, ${target < 2 ? 'met' : 'NOT met'}\n`,
  );
}

runBench(main);

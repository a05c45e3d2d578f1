import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client as PgClient } from 'pg';
import { type Dispatcher, request } from 'undici';
import { startDevServer } from '../src/temporal/dev-server';
import { databaseUrl } from '../test/harness/databases';
import { freePort } from '../test/harness/ports';
import { startPostgresCluster } from '../test/harness/postgres-cluster';

/** `dist/src/main.js`, the built entry point the benches run as a child process. */
export const ENTRY = join(__dirname, '..', 'src', 'main.js');

export function assertBuilt(): void {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run \`npm run build\` first`);
}

// ---------------------------------------------------------------------------------------------
// Machine description

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match?.[1]) return match[1].trim();
  } catch {
    // Not Linux.
  }
  return 'unknown CPU';
}

function osRelease(): string {
  try {
    const match = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (match?.[1]) return `${match[1]}, kernel ${release()}`;
  } catch {
    // No os-release.
  }
  return `${process.platform} ${release()}`;
}

/** One line naming the machine, e.g. for the README table. */
export function machineLine(): string {
  const gib = (totalmem() / 1024 ** 3).toFixed(1);
  return `${cpuModel()}, ${availableParallelism()} cores, ${gib} GiB RAM, Node ${process.version}, ${osRelease()}`;
}

/** The load averages: other work on the machine (a test run, a build) skews every figure. */
export function loadLine(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

// ---------------------------------------------------------------------------------------------
// Statistics and output

export interface Summary {
  readonly count: number;
  readonly min: number;
  readonly median: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Linear-interpolated quantile of sorted values. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower] ?? Number.NaN;
  const high = sorted[upper] ?? Number.NaN;
  return low + (high - low) * (position - lower);
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    count: sorted.length,
    min: sorted[0] ?? Number.NaN,
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

export function median(values: readonly number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

export function fixed(value: number, digits = 2): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '-';
}

/** Prints rows as an aligned plain-text table (first row is the header). */
export function printTable(rows: readonly (readonly string[])[]): void {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, index) =>
        index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0),
      )
      .join('  ');
  const [header, ...body] = rows;
  if (!header) return;
  process.stdout.write(`${line(header)}\n${widths.map((width) => '-'.repeat(width)).join('  ')}\n`);
  for (const row of body) process.stdout.write(`${line(row)}\n`);
}

export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// Clean-up of everything a bench started, also on error and on Ctrl-C

const cleanups: Array<{ what: string; run: () => Promise<void> | void }> = [];

/** Registers a clean-up; returns a function that runs it now (once) and unregisters it. */
export function onCleanup(what: string, run: () => Promise<void> | void): () => Promise<void> {
  const entry = { what, run };
  cleanups.push(entry);
  return async () => {
    const index = cleanups.indexOf(entry);
    if (index < 0) return;
    cleanups.splice(index, 1);
    await entry.run();
  };
}

let cleaning: Promise<void> | undefined;

/** Runs every registered clean-up once, newest first; concurrent callers share the one run. */
function runCleanups(): Promise<void> {
  cleaning ??= drainCleanups();
  return cleaning;
}

async function drainCleanups(): Promise<void> {
  while (cleanups.length > 0) {
    const entry = cleanups.pop();
    if (!entry) break;
    try {
      await entry.run();
    } catch (error) {
      log(`clean-up of ${entry.what} failed: ${String(error)}`);
    }
  }
}

/** Runs a bench's main function, then every registered clean-up, whatever happens. */
export function runBench(main: () => Promise<void>): void {
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping what the bench started`);
    void runCleanups().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  void main()
    .then(
      () => 0,
      (error: unknown) => {
        // After Ctrl-C, requests fail because the service is stopping: not worth a stack trace.
        if (interrupted) return 130;
        process.stderr.write(
          `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        );
        return 1;
      },
    )
    .then(async (code) => {
      await runCleanups();
      process.exit(code);
    });
}

// ---------------------------------------------------------------------------------------------
// The service as a child process

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** Output written so far (kept when stdout goes to a file: read the file). */
  output(): string;
  /** SIGTERM, then SIGKILL of its process group after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | string>;
}

export interface SpawnOptions {
  readonly env: Readonly<Record<string, string>>;
  /** Send stdout and stderr to this file instead of keeping them in memory. */
  readonly logFile?: string;
  /** Called with each chunk of output when it is kept in memory. */
  readonly onOutput?: (chunk: string) => void;
}

/** Spawns `node dist/src/main.js <mode>` in its own process group (so nothing it starts outlives it). */
export function spawnService(
  mode: 'api' | 'local' | 'worker',
  options: SpawnOptions,
): ServiceProcess {
  assertBuilt();
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', ...options.env };
  if (process.env.HOME) env.HOME = process.env.HOME;
  // For profiling, e.g. BENCH_SERVICE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'.
  const args = [
    ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
    ENTRY,
    mode,
  ];
  let output = '';
  let child: ChildProcess;
  if (options.logFile) {
    const fd = openSync(options.logFile, 'w');
    try {
      child = spawn(process.execPath, args, {
        env,
        stdio: ['ignore', fd, fd],
        detached: true,
      });
    } finally {
      closeSync(fd);
    }
  } else {
    child = spawn(process.execPath, args, {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const keep = (chunk: Buffer): void => {
      const text = chunk.toString();
      output = (output + text).slice(-200_000);
      options.onOutput?.(text);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const logFile = options.logFile;
  return {
    child,
    exited,
    output: () => (logFile ? readFileSync(logFile, 'utf8') : output),
    async stop(graceMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        log(`pid ${child.pid} did not stop within ${graceMs} ms: SIGKILL to its process group`);
        if (child.pid) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
      }, graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Last lines of a process's output, for error messages. */
export function tail(text: string, lines = 30): string {
  return text.split('\n').slice(-lines).join('\n');
}

/**
 * Polls `GET <url>/ready` every `intervalMs` until it answers 200; resolves with the time (ms,
 * `performance.now()`) of that answer. Fails if the process exits or the deadline passes.
 */
export async function waitReady(
  baseUrl: string,
  service: ServiceProcess,
  { intervalMs = 50, timeoutMs = 120_000 } = {},
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let exitedWith: number | string | undefined;
  void service.exited.then((code) => (exitedWith = code));
  let last = 'no answer yet';
  for (;;) {
    if (exitedWith !== undefined) {
      throw new Error(
        `The service exited with ${exitedWith} before it was ready:\n${tail(service.output())}`,
      );
    }
    try {
      // `reset`: no keep-alive connection is left behind to hold up the service's shutdown.
      const response = await request(`${baseUrl}/ready`, {
        headersTimeout: 5_000,
        bodyTimeout: 5_000,
        reset: true,
      });
      const body = await response.body.text();
      if (response.statusCode === 200) return performance.now();
      last = `${response.statusCode} ${body.slice(0, 200)}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (performance.now() > deadline) {
      throw new Error(
        `${baseUrl}/ready did not answer 200 within ${timeoutMs} ms (last: ${last}):\n${tail(service.output())}`,
      );
    }
    await sleep(intervalMs);
  }
}

// ---------------------------------------------------------------------------------------------
// Measurement

/** One measured series: latencies, throughput and the service's CPU time per request. */
export interface Row {
  readonly label: string;
  readonly summary: Summary;
  readonly perSecond: number;
  /** CPU time of the service process per request, ms (from /proc), when known. */
  readonly serviceCpuMs?: number;
}

/**
 * utime + stime of a process in ms, from /proc (Linux); undefined elsewhere. With `tid`, of that
 * one thread of the process (`tid === pid` is its main thread, the one running JavaScript).
 */
export function processCpuMs(pid: number | undefined, tid?: number): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const file = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
    const stat = readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the command: state is index 0, utime index 11, stime index 12 (clock ticks).
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux.
  } catch {
    return undefined;
  }
}

/** Whole-machine CPU, clock ticks since boot (busy: user, nice, system, irq, softirq), from /proc/stat. */
export interface MachineTicks {
  readonly busy: number;
  readonly steal: number;
  readonly total: number;
}

export function machineTicks(): MachineTicks | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] =
      line.trim().split(/\s+/).slice(1, 9).map(Number);
    return {
      busy: user + nice + system + irq + softirq,
      steal,
      total: user + nice + system + idle + iowait + irq + softirq + steal,
    };
  } catch {
    return undefined;
  }
}

/** CPU ms of each thread of a process by thread id (the thread whose id is the pid runs JavaScript). */
export function threadCpu(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  try {
    for (const entry of readdirSync(`/proc/${pid}/task`)) {
      const ms = processCpuMs(pid, Number(entry));
      if (ms !== undefined) threads.set(Number(entry), ms);
    }
  } catch {
    // Not Linux, or the process is gone.
  }
  return threads;
}

/**
 * CLOCK_MONOTONIC in µs, the clock of V8's `.cpuprofile` timestamps: logged around each phase, so
 * `cpu-profile-top.js` can keep only the samples taken while it ran.
 */
export const monotonicMicros = (): bigint => process.hrtime.bigint() / 1000n;

/** Runs `run` and logs its CLOCK_MONOTONIC window (`phase "<name>": monotonic <from>..<to> µs`). */
export async function phase<T>(name: string, run: () => Promise<T>): Promise<T> {
  const from = monotonicMicros();
  const result = await run();
  log(`phase "${name}": monotonic ${from}..${monotonicMicros()} µs`);
  return result;
}

function cpuPerRequest(
  before: number | undefined,
  after: number | undefined,
  requests: number,
): number | undefined {
  return before !== undefined && after !== undefined && requests > 0
    ? (after - before) / requests
    : undefined;
}

/** `count` sequential calls of `call`, after `warmup` unmeasured ones. */
export async function sequential(
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
  return {
    label,
    summary: summarize(latencies),
    perSecond: (count * 1000) / elapsed,
    serviceCpuMs: cpuPerRequest(cpuBefore, processCpuMs(servicePid), count),
  };
}

/**
 * `concurrency` loops calling `call` for `seconds`, after `warmupRounds` unmeasured rounds of
 * `concurrency` parallel calls (which also open the pool's connections).
 */
export async function concurrent(
  label: string,
  call: () => Promise<void>,
  concurrency: number,
  seconds: number,
  servicePid?: number,
  warmupRounds = 20,
): Promise<Row> {
  for (let round = 0; round < warmupRounds; round += 1)
    await Promise.all(Array.from({ length: concurrency }, () => call()));
  const latencies: number[] = [];
  const cpuBefore = processCpuMs(servicePid);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const before = performance.now();
        await call();
        latencies.push(performance.now() - before);
      }
    }),
  );
  const elapsed = performance.now() - started;
  return {
    label,
    summary: summarize(latencies),
    perSecond: (latencies.length * 1000) / elapsed,
    serviceCpuMs: cpuPerRequest(cpuBefore, processCpuMs(servicePid), latencies.length),
  };
}

/** Header and cells of the usual results table (latencies in ms). */
export const ROW_HEADER: readonly string[] = [
  '',
  'requests',
  'min',
  'median',
  'p90',
  'p99',
  'max',
  'req/s',
  'service CPU/req',
];

export function rowCells(row: Row): string[] {
  return [
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
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL, Temporal and `junction api` for the benches that run the service in api mode

export interface Backends {
  /** The PostgreSQL server (its default database), for admin connections. */
  readonly serverUrl: string;
  /** A fresh database `junction_bench_<random>` on it, dropped at clean-up. */
  readonly databaseUrl: string;
  readonly temporalAddress: string;
}

/**
 * A throwaway PostgreSQL cluster (`startPostgresCluster()`, no fsync) unless DATABASE_URL is set,
 * a Temporal dev server unless TEMPORAL_ADDRESS is set, and a fresh database on the server. All
 * of it is stopped or dropped by the bench's clean-up.
 */
export async function startBackends(workDir: string): Promise<Backends> {
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
  const adminUrl = serverUrl;
  onCleanup(`database ${database}`, async () => {
    const cleanup = new PgClient({ connectionString: adminUrl });
    await cleanup.connect();
    try {
      await cleanup.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    } finally {
      await cleanup.end();
    }
  });
  return { serverUrl, databaseUrl: databaseUrl(serverUrl, database), temporalAddress };
}

/**
 * The environment `junction api` needs against `backends`: a random 40-character dev secret key,
 * a random encryption key (`id:base64 of 32 bytes`), a private task queue, no metrics port.
 */
export function apiEnvironment(
  backends: Backends,
  encryptionKeyId = 'bench',
): { env: Record<string, string>; secretKey: string } {
  const secretKey = randomBytes(30).toString('base64url'); // 40 characters.
  return {
    secretKey,
    env: {
      DATABASE_URL: backends.databaseUrl,
      TEMPORAL_ADDRESS: backends.temporalAddress,
      METRICS_PORT: '0',
      JUNCTION_DEV_SECRET_KEY: secretKey,
      TEMPORAL_TASK_QUEUE: `bench-${randomBytes(4).toString('hex')}`,
      ENCRYPTION_KEYS: `${encryptionKeyId}:${randomBytes(32).toString('base64')}`,
    },
  };
}

export interface ApiService {
  readonly service: ServiceProcess;
  readonly baseUrl: string;
  /** SIGTERM and wait for the exit (logged when not 0); also registered as a clean-up. */
  readonly stop: () => Promise<void>;
}

/** Spawns `junction api` on a free port with `env`, output to `logFile`; waits for `/ready`. */
export async function startApi(
  label: string,
  env: Record<string, string>,
  logFile: string,
): Promise<ApiService> {
  const port = await freePort();
  const service = spawnService('api', { env: { ...env, PORT: String(port) }, logFile });
  const stop = onCleanup(label, async () => {
    const exitCode = await service.stop();
    if (exitCode !== 0) log(`${label} exited with ${exitCode}:\n${tail(service.output())}`);
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const spawnedAt = performance.now();
  const readyAt = await waitReady(baseUrl, service, { intervalMs: 50, timeoutMs: 60_000 });
  log(
    `${label} ready after ${fixed(readyAt - spawnedAt, 0)} ms, pid ${service.child.pid}, log ${logFile}`,
  );
  return { service, baseUrl, stop };
}

// ---------------------------------------------------------------------------------------------
// `junction worker` and JSON calls, for the benches of syncs, schedules and actions

/** Spawns `junction worker` with `env`, output to `logFile`; resolves once it has started. */
export async function startWorker(
  env: Record<string, string>,
  logFile: string,
): Promise<ServiceProcess> {
  const worker = spawnService('worker', { env, logFile });
  onCleanup('junction worker', async () => {
    await worker.stop();
  });
  const deadline = Date.now() + 60_000;
  while (!readFileSync(logFile, 'utf8').includes('Junction worker started')) {
    if (Date.now() > deadline) {
      throw new Error(`the worker did not start:\n${tail(worker.output())}`);
    }
    await sleep(100);
  }
  log(`junction worker started, pid ${worker.child.pid}`);
  return worker;
}

export type JsonCall = <T = unknown>(
  method: Dispatcher.HttpMethod,
  path: string,
  body?: unknown,
) => Promise<T>;

/** JSON calls to the API with the secret key; an answer of 300 or more throws. */
export function jsonCaller(baseUrl: string, key: string): JsonCall {
  return async <T>(method: Dispatcher.HttpMethod, path: string, body?: unknown): Promise<T> => {
    const response = await request(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) {
      throw new Error(`${method} ${path} answered ${response.statusCode}: ${text.slice(0, 500)}`);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  };
}

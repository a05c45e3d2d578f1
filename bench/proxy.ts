/**
 * The proxy (`GET /proxy/*`) side by side with direct calls to a minimal local upstream and with
 * nginx `proxy_pass` as the reference proxy, in one run on loopback:
 *
 * - added latency at concurrency 1 (median through the proxy minus the direct median);
 * - throughput at concurrency 64;
 * - the service's RSS while a 200 MiB body streams through it.
 *
 * Junction runs as `junction api` twice, with LOG_LEVEL=info (request logging is part of the real
 * cost) and LOG_LEVEL=warn; nginx runs without an access log and with Debian's default one (a
 * `combined` line per request), so each level has a like-for-like reference. nginx is skipped,
 * with a message, when it is not installed and the bench is not running as root (as root it runs
 * `apt-get install -y nginx`).
 *
 *   npm run build && npm run bench:proxy
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client as PgClient } from 'pg';
import { Client, Pool } from 'undici';
import {
  apiEnvironment,
  fixed,
  loadLine,
  log,
  machineLine,
  machineTicks,
  type MachineTicks,
  onCleanup,
  phase,
  printTable,
  processCpuMs,
  runBench,
  startApi,
  startBackends,
  summarize,
  tail,
  type ApiService,
  type Summary,
} from './common';
import { debianTool } from './tools';
import { runWrk, wrkScriptFile, type WrkResult } from './wrk';
import { BIG_BYTES, CHUNK_BYTES, ITEM_BYTES, itemBody, type UpstreamStats } from './proxy-upstream';

/** The connection's API key: Junction and nginx both send `Authorization: Bearer <it>` upstream. */
const UPSTREAM_KEY = 'k';
const UPSTREAM_AUTHORIZATION = `Bearer ${UPSTREAM_KEY}`;
const PROVIDER = 'bench-up';
const INTEGRATION = 'up';
const CONNECTION = 'c';

/** Sequential phase: ROUNDS rounds, each target in turn, so drift in the machine's load hits all. */
const ROUNDS = 3;
const FIRST_WARMUP_REQUESTS = 300;
const ROUND_WARMUP_REQUESTS = 50;
const REQUESTS_PER_ROUND = 1_000;
const CONCURRENCY = 64;
const CONCURRENT_SECONDS = 8;
/** Unmeasured rounds of CONCURRENCY parallel requests before the concurrent measurement. */
const CONCURRENT_WARMUP_ROUNDS = 20;
/** Every n-th `/item` response body is compared byte for byte (all are checked for length). */
const CHECK_EVERY = 50;
/** RSS sampling of the proxy process while `/big` streams. */
const RSS_INTERVAL_MS = 20;
const RSS_BASELINE_MS = 1_000;
/** Bounds of one `/big` transfer. */
const BIG_TIMEOUT_MS = 180_000;
/** nginx worker processes: 1 by default, like the one JavaScript thread of one service process. */
const NGINX_WORKERS = process.env.BENCH_NGINX_WORKERS ?? '1';
/** nginx again, writing an access log line per request as Junction does at LOG_LEVEL=info. */
const NGINX_LOGGING = `nginx (${NGINX_WORKERS} worker${NGINX_WORKERS === '1' ? '' : 's'}, access log)`;
/** The services measured, one per LOG_LEVEL (BENCH_LOG_LEVELS, comma-separated). */
const LOG_LEVELS = (process.env.BENCH_LOG_LEVELS ?? 'info,warn')
  .split(',')
  .map((level) => level.trim());
/** wrk: seconds per run, and interleaved rounds at concurrency 64 (the median round counts). */
const WRK_SECONDS = 6;
const WRK_ROUNDS = 3;
/**
 * Which measurements run (BENCH_PROXY_PARTS, comma-separated; all by default): `node` (the Node
 * client at concurrency 1 and 64), `wrk`, `big` (streaming 200 MiB). Quicker runs while tuning.
 */
const PARTS = new Set(
  (process.env.BENCH_PROXY_PARTS ?? 'node,wrk,big').split(',').map((part) => part.trim()),
);

/** Targets of the issue. */
const TARGET_ADDED_MS = 0.5;
const TARGET_RATIO_VS_NGINX = 0.3;
const TARGET_RSS_GROWTH_MB = 50;

/** A process busy this share of one core or more is the bottleneck of the row. */
const CLIENT_SATURATED = 0.9;

const MB = 1024 * 1024;
const ITEM = itemBody();

// ---------------------------------------------------------------------------------------------
// Child processes: the upstream and nginx

interface Child {
  readonly child: ChildProcess;
  readonly exited: Promise<number | string>;
  stop(): Promise<number | string>;
}

/** Spawns in its own process group; `stop` sends `signal`, then SIGKILL to the group after 10 s. */
function spawnChild(
  command: string,
  args: string[],
  signal: NodeJS.Signals,
  onOutput: (text: string) => void,
): Child {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout?.on('data', (chunk: Buffer) => onOutput(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => onOutput(chunk.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, name) => resolve(code ?? name ?? 'unknown')),
  );
  return {
    child,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill(signal);
      const timer = setTimeout(() => {
        if (child.pid) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
      }, 10_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

interface Upstream {
  readonly origin: string;
  readonly port: number;
  readonly pid: number;
  stats(): Promise<UpstreamStats>;
}

async function startUpstream(): Promise<Upstream> {
  let output = '';
  let resolvePort: (port: number) => void = () => undefined;
  const portLine = new Promise<number>((resolve) => (resolvePort = resolve));
  const upstream = spawnChild(
    process.execPath,
    [join(__dirname, 'proxy-upstream.js'), UPSTREAM_AUTHORIZATION],
    'SIGTERM',
    (text) => {
      output += text;
      const match = /listening (\d+)/.exec(output);
      if (match) resolvePort(Number(match[1]));
    },
  );
  onCleanup('upstream server', async () => {
    await upstream.stop();
  });
  const port = await Promise.race([
    portLine,
    upstream.exited.then((code) => {
      throw new Error(`The upstream server exited with ${code}: ${output}`);
    }),
    sleep(15_000).then(() => {
      throw new Error(`The upstream server did not start within 15 s: ${output}`);
    }),
  ]);
  const origin = `http://127.0.0.1:${port}`;
  const pid = upstream.child.pid;
  if (pid === undefined) throw new Error('The upstream server has no pid');
  return {
    origin,
    port,
    pid,
    // A new connection per call (`reset`), so each call adds exactly one to `connections`.
    async stats() {
      const client = new Client(origin);
      try {
        const response = await client.request({
          path: '/stats',
          method: 'GET',
          headers: { authorization: UPSTREAM_AUTHORIZATION },
          reset: true,
        });
        return (await response.body.json()) as UpstreamStats;
      } finally {
        await client.close();
      }
    },
  };
}

/** The nginx binary; installs Debian's package when missing and running as root. */
function findNginx(): { path?: string; note: string } {
  const found = debianTool('nginx', 'nginx');
  if (!found.path) return { note: `${found.note}: nginx column skipped` };
  // Debian's images forbid starting services from packages (policy-rc.d); say so if one started.
  let started = '';
  if (found.note.endsWith('installed by this run')) {
    try {
      started = ` (note: the package started a system nginx, pid ${readFileSync('/run/nginx.pid', 'utf8').trim()}; left alone)`;
    } catch {
      // No system nginx running.
    }
  }
  return { path: found.path, note: `${found.note}${started}` };
}

interface Nginx {
  readonly origin: string;
  /** The same proxy with Debian's default access log (one `combined` line per request, unbuffered). */
  readonly loggingOrigin: string;
  readonly version: string;
  /** Master and workers. */
  pids(): number[];
  workerPids(): number[];
}

function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

async function startNginx(binary: string, upstreamPort: number, workDir: string): Promise<Nginx> {
  const prefix = join(workDir, 'nginx');
  mkdirSync(prefix);
  // The workers (user nobody when the master runs as root) need to reach their temp folders.
  chmodSync(workDir, 0o755);
  chmodSync(prefix, 0o755);
  const port = await freeLoopbackPort();
  const loggingPort = await freeLoopbackPort();
  const isRoot = process.getuid?.() === 0;
  // The proxy on two ports: without an access log, and with Debian's default one.
  const server = (listen: number, accessLog: string): string => `  server {
    listen 127.0.0.1:${listen};
    ${accessLog}
    keepalive_requests 1000000;
    keepalive_timeout 120s;
    location /proxy/ {
      proxy_pass http://u/;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Authorization "${UPSTREAM_AUTHORIZATION}";
    }
  }`;
  const config = `# bench:proxy, generated
daemon off;
worker_processes ${NGINX_WORKERS};
${isRoot ? 'user nobody nogroup;\n' : ''}pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${join(prefix, 'client_body')};
  proxy_temp_path ${join(prefix, 'proxy_temp')};
  fastcgi_temp_path ${join(prefix, 'fastcgi_temp')};
  uwsgi_temp_path ${join(prefix, 'uwsgi_temp')};
  scgi_temp_path ${join(prefix, 'scgi_temp')};
  upstream u {
    server 127.0.0.1:${upstreamPort};
    keepalive 64;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
  }
${server(port, '')}
${server(loggingPort, `access_log ${join(prefix, 'access.log')} combined;`)}
}
`;
  const configFile = join(prefix, 'nginx.conf');
  writeFileSync(configFile, config);
  const version = (spawnSync(binary, ['-v'], { encoding: 'utf8' }).stderr ?? '').trim();
  let output = '';
  const nginx = spawnChild(
    binary,
    ['-p', `${prefix}/`, '-c', configFile, '-e', join(prefix, 'error.log')],
    'SIGTERM',
    (text) => (output = (output + text).slice(-20_000)),
  );
  onCleanup('nginx', async () => {
    const code = await nginx.stop();
    if (code !== 0 && code !== 'SIGTERM') log(`nginx exited with ${code}: ${tail(output)}`);
  });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 15_000;
  let exited: number | string | undefined;
  void nginx.exited.then((code) => (exited = code));
  for (;;) {
    if (exited !== undefined) {
      let errors = '';
      try {
        errors = readFileSync(join(prefix, 'error.log'), 'utf8');
      } catch {
        // No log.
      }
      throw new Error(`nginx exited with ${exited}: ${output}\n${tail(errors)}`);
    }
    try {
      const client = new Client(origin);
      try {
        const response = await client.request({
          path: '/proxy/item',
          method: 'GET',
          reset: true,
        });
        await response.body.dump();
        if (response.statusCode === 200) break;
      } finally {
        await client.close();
      }
    } catch {
      // Not listening yet.
    }
    if (performance.now() > deadline) throw new Error(`nginx did not answer within 15 s`);
    await sleep(50);
  }
  const master = nginx.child.pid;
  if (master === undefined) throw new Error('nginx has no pid');
  log(`nginx ready at ${origin}, master pid ${master}, workers ${childPids(master).join(', ')}`);
  return {
    origin,
    loggingOrigin: `http://127.0.0.1:${loggingPort}`,
    version,
    pids: () => [master, ...childPids(master)],
    workerPids: () => childPids(master),
  };
}

/** A free TCP port on 127.0.0.1 (for nginx, which cannot report a port it picked itself). */
async function freeLoopbackPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Junction: the custom provider, integration and connection

async function apiCall(
  baseUrl: string,
  secretKey: string,
  method: 'PUT' | 'POST',
  path: string,
  body: unknown,
): Promise<void> {
  const client = new Client(baseUrl);
  try {
    const response = await client.request({
      path,
      method,
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200 && response.statusCode !== 201)
      throw new Error(`${method} ${path} answered ${response.statusCode}: ${text.slice(0, 400)}`);
  } finally {
    await client.close();
  }
}

async function setUpJunction(baseUrl: string, secretKey: string, upstreamPort: number) {
  await apiCall(baseUrl, secretKey, 'PUT', `/providers/${PROVIDER}`, {
    display_name: 'Bench',
    auth_mode: 'API_KEY',
    proxy: {
      base_url: `http://127.0.0.1:${upstreamPort}`,
      headers: { Authorization: 'Bearer ${apiKey}' },
    },
    docs: 'https://example.com',
  });
  await apiCall(baseUrl, secretKey, 'POST', '/config', {
    provider: PROVIDER,
    provider_config_key: INTEGRATION,
  });
  await apiCall(baseUrl, secretKey, 'POST', '/connection', {
    provider_config_key: INTEGRATION,
    connection_id: CONNECTION,
    api_key: UPSTREAM_KEY,
  });
}

// ---------------------------------------------------------------------------------------------
// Targets and what their processes use

interface Target {
  readonly name: string;
  readonly origin: string;
  readonly itemPath: string;
  readonly bigPath: string;
  readonly headers: Record<string, string>;
  /** Processes whose CPU is the proxy's (none for direct calls). */
  readonly proxyPids: () => number[];
  /** The process that runs JavaScript (its main thread is reported apart), for Junction. */
  readonly servicePid?: number;
  /** Processes whose RSS is sampled during `/big`, and what they are. */
  readonly rssPids: () => number[];
  readonly rssWhat: string;
}

interface CpuReading {
  /** PostgreSQL backends serving the bench database by pid, ms. */
  readonly backends: Map<number, number>;
  readonly proxy: number;
  readonly proxyMain: number;
  readonly upstream: number;
  readonly client: number;
  readonly machine?: MachineTicks;
}

const sumOf = (values: Iterable<number>): number => {
  let total = 0;
  for (const value of values) total += value;
  return total;
};

/** The bench database's PostgreSQL backends (both services'), for their CPU time. */
let admin: PgClient | undefined;

async function readCpu(target: Target, upstreamPid: number): Promise<CpuReading> {
  const backends = new Map<number, number>();
  if (admin) {
    const { rows } = await admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    for (const { pid } of rows) {
      const ms = processCpuMs(pid);
      if (ms !== undefined) backends.set(pid, ms);
    }
  }
  const usage = process.cpuUsage();
  return {
    backends,
    proxy: sumOf(target.proxyPids().map((pid) => processCpuMs(pid) ?? 0)),
    proxyMain:
      target.servicePid === undefined
        ? Number.NaN
        : (processCpuMs(target.servicePid, target.servicePid) ?? Number.NaN),
    upstream: processCpuMs(upstreamPid) ?? 0,
    client: (usage.user + usage.system) / 1000,
    machine: machineTicks(),
  };
}

/** CPU used between two readings, ms, and the machine's busy and steal ticks. */
interface CpuUse {
  backends: number;
  proxy: number;
  proxyMain: number;
  upstream: number;
  client: number;
  machineBusyMs: number;
  machineTotalMs: number;
  stealMs: number;
}

function emptyUse(): CpuUse {
  return {
    backends: 0,
    proxy: 0,
    proxyMain: 0,
    upstream: 0,
    client: 0,
    machineBusyMs: 0,
    machineTotalMs: 0,
    stealMs: 0,
  };
}

function addUse(total: CpuUse, before: CpuReading, after: CpuReading): void {
  // Backends that appeared since count from 0.
  for (const [pid, ms] of after.backends) total.backends += ms - (before.backends.get(pid) ?? 0);
  total.proxy += after.proxy - before.proxy;
  total.proxyMain += after.proxyMain - before.proxyMain;
  total.upstream += after.upstream - before.upstream;
  total.client += after.client - before.client;
  if (before.machine && after.machine) {
    // USER_HZ is 100: one tick is 10 ms.
    total.machineBusyMs += (after.machine.busy - before.machine.busy) * 10;
    total.machineTotalMs += (after.machine.total - before.machine.total) * 10;
    total.stealMs += (after.machine.steal - before.machine.steal) * 10;
  }
}

interface Measured {
  readonly target: Target;
  readonly latencies: number[];
  elapsedMs: number;
  readonly cpu: CpuUse;
  /** Requests the upstream served, and TCP connections it accepted, during the measured windows. */
  upstreamItems: number;
  upstreamConnections: number;
}

function newMeasured(target: Target): Measured {
  return {
    target,
    latencies: [],
    elapsedMs: 0,
    cpu: emptyUse(),
    upstreamItems: 0,
    upstreamConnections: 0,
  };
}

/** One `GET /item` through `dispatcher`; the status must be 200 and the body the 1 KiB item. */
async function getItem(
  dispatcher: Client | Pool,
  target: Target,
  counter: { sent: number },
): Promise<void> {
  const { statusCode, headers, body } = await dispatcher.request({
    path: target.itemPath,
    method: 'GET',
    headers: target.headers,
  });
  const bytes = Buffer.from(await body.arrayBuffer());
  counter.sent += 1;
  if (statusCode !== 200 || bytes.length !== ITEM_BYTES) {
    throw new Error(
      `${target.name}: GET ${target.itemPath} answered ${statusCode} with ${bytes.length} bytes ` +
        `(${JSON.stringify(headers)}): ${bytes.toString('utf8', 0, 300)}`,
    );
  }
  if (counter.sent % CHECK_EVERY === 0 && !bytes.equals(ITEM))
    throw new Error(`${target.name}: GET ${target.itemPath} returned another body`);
}

async function upstreamDelta(
  upstream: Upstream,
  run: () => Promise<void>,
): Promise<{ items: number; connections: number }> {
  const before = await upstream.stats();
  await run();
  const after = await upstream.stats();
  // The `after` call's own connection is counted in `after`.
  return {
    items: after.item - before.item,
    connections: after.connections - before.connections - 1,
  };
}

/** ROUNDS rounds; in each, every target: warm-up, then REQUESTS_PER_ROUND sequential requests. */
async function measureSequential(targets: Target[], upstream: Upstream): Promise<Measured[]> {
  const results = targets.map(newMeasured);
  const clients = targets.map(
    (target) => new Client(target.origin, { pipelining: 1, keepAliveTimeout: 60_000 }),
  );
  const counter = { sent: 0 };
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [index, target] of targets.entries()) {
        const client = clients[index];
        const result = results[index];
        if (!client || !result) continue;
        const warmup = round === 0 ? FIRST_WARMUP_REQUESTS : ROUND_WARMUP_REQUESTS;
        log(
          `sequential round ${round + 1}/${ROUNDS}, ${target.name}: ${warmup} warm-up + ${REQUESTS_PER_ROUND}`,
        );
        for (let request = 0; request < warmup; request += 1)
          await getItem(client, target, counter);
        const delta = await upstreamDelta(upstream, () =>
          phase(`${target.name}, sequential round ${round + 1}`, async () => {
            const before = await readCpu(target, upstream.pid);
            const started = performance.now();
            for (let request = 0; request < REQUESTS_PER_ROUND; request += 1) {
              const sent = performance.now();
              await getItem(client, target, counter);
              result.latencies.push(performance.now() - sent);
            }
            result.elapsedMs += performance.now() - started;
            addUse(result.cpu, before, await readCpu(target, upstream.pid));
          }),
        );
        result.upstreamItems += delta.items;
        result.upstreamConnections += delta.connections;
      }
    }
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
  return results;
}

/** CONCURRENCY loops for CONCURRENT_SECONDS against each target in turn. */
async function measureConcurrent(targets: Target[], upstream: Upstream): Promise<Measured[]> {
  const results: Measured[] = [];
  const counter = { sent: 0 };
  for (const target of targets) {
    const result = newMeasured(target);
    const pool = new Pool(target.origin, {
      connections: CONCURRENCY,
      pipelining: 1,
      keepAliveTimeout: 60_000,
    });
    try {
      log(`concurrency ${CONCURRENCY}, ${target.name}: ${CONCURRENT_SECONDS} s`);
      for (let round = 0; round < CONCURRENT_WARMUP_ROUNDS; round += 1)
        await Promise.all(
          Array.from({ length: CONCURRENCY }, () => getItem(pool, target, counter)),
        );
      const delta = await upstreamDelta(upstream, () =>
        phase(`${target.name}, concurrency ${CONCURRENCY}`, async () => {
          const before = await readCpu(target, upstream.pid);
          const started = performance.now();
          const deadline = started + CONCURRENT_SECONDS * 1000;
          await Promise.all(
            Array.from({ length: CONCURRENCY }, async () => {
              while (performance.now() < deadline) {
                const sent = performance.now();
                await getItem(pool, target, counter);
                result.latencies.push(performance.now() - sent);
              }
            }),
          );
          result.elapsedMs = performance.now() - started;
          addUse(result.cpu, before, await readCpu(target, upstream.pid));
        }),
      );
      result.upstreamItems = delta.items;
      result.upstreamConnections = delta.connections;
    } finally {
      await pool.close();
    }
    results.push(result);
  }
  return results;
}

/** wrk's figures for one target at concurrency 1 and CONCURRENCY. */
interface WrkMeasured {
  readonly target: Target;
  readonly sequential: WrkResult;
  /** The median of the concurrency-64 rounds, by req/s. */
  readonly concurrent: WrkResult;
  readonly rounds: readonly WrkResult[];
}

/** A Lua table literal of `headers`, for wrk's request script. */
const luaTable = (headers: Record<string, string>): string =>
  `{ ${Object.entries(headers)
    .map(([name, value]) => `[${JSON.stringify(name)}] = ${JSON.stringify(value)}`)
    .join(', ')} }`;

/**
 * The same GET /item loads from wrk: per target, one connection for WRK_SECONDS, then
 * WRK_ROUNDS interleaved rounds of CONCURRENCY connections for as long. Every response must be
 * 2xx and the upstream must have served exactly as many /item requests as wrk completed (plus
 * those cut off at the end).
 */
async function measureWithWrk(
  wrk: string,
  targets: Target[],
  upstream: Upstream,
  workDir: string,
): Promise<WrkMeasured[]> {
  const run = async (target: Target, connections: number, label: string): Promise<WrkResult> => {
    const name = `${target.name}, wrk, concurrency ${connections}${label}`;
    log(`${name}: ${WRK_SECONDS} s`);
    let result: WrkResult | undefined;
    // wrk stops with requests in flight; a proxy may still forward them after wrk closed its
    // connections: let them land before counting this phase's /item requests.
    await sleep(1_000);
    const delta = await upstreamDelta(upstream, async () => {
      result = await phase(name, () =>
        runWrk({
          wrk,
          baseUrl: target.origin,
          connections,
          seconds: WRK_SECONDS,
          requestLua: `local headers = ${luaTable(target.headers)}\nrequest = function() return wrk.format("GET", ${JSON.stringify(target.itemPath)}, headers) end`,
          scriptFile: wrkScriptFile(workDir, 'proxy-item'),
          label: target.name,
          servicePid: target.servicePid,
        }),
      );
    });
    if (!result) throw new Error(`${name}: no result`);
    if (result.failedStatus > 0 || result.socketErrors > 0)
      throw new Error(
        `${name}: ${result.failedStatus} responses of 400 or more, ${result.socketErrors} socket errors`,
      );
    // wrk stops with requests in flight: the upstream may have served up to `connections` more.
    if (
      delta.items < result.row.summary.count ||
      delta.items > result.row.summary.count + connections
    )
      throw new Error(
        `${name}: the upstream served ${delta.items} /item for ${result.row.summary.count} completed requests`,
      );
    return result;
  };

  const sequential = new Map<Target, WrkResult>();
  for (const target of targets) sequential.set(target, await run(target, 1, ''));
  // Concurrency 64 in interleaved rounds, so a drift in the machine's speed (another tenant, a
  // warmer cache) touches every target alike; each target's figure is its median round.
  const rounds = new Map<Target, WrkResult[]>(targets.map((target) => [target, []]));
  for (let round = 1; round <= WRK_ROUNDS; round++) {
    for (const target of targets)
      rounds.get(target)!.push(await run(target, CONCURRENCY, `, round ${round}`));
  }
  return targets.map((target) => {
    const all = rounds.get(target)!;
    const sorted = [...all].sort((a, b) => a.row.perSecond - b.row.perSecond);
    return {
      target,
      sequential: sequential.get(target)!,
      concurrent: sorted[Math.floor((sorted.length - 1) / 2)]!,
      rounds: all,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Streaming /big and the proxy's RSS

function rssMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kb += Number(match?.[1] ?? Number.NaN);
    } catch {
      return Number.NaN;
    }
  }
  return kb / 1024;
}

/** The kernel's own peak RSS (VmHWM) since the last reset, MiB. */
function hwmMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kb += Number(match?.[1] ?? Number.NaN);
    } catch {
      return Number.NaN;
    }
  }
  return kb / 1024;
}

/** Resets VmHWM to the current RSS (`echo 5 > /proc/<pid>/clear_refs`); false when not allowed. */
function resetHwm(pids: number[]): boolean {
  try {
    for (const pid of pids) writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

interface BigResult {
  readonly target: Target;
  readonly bytes: number;
  readonly seconds: number;
  readonly baselineMb: number;
  readonly peakMb: number;
  readonly hwmMb: number;
  readonly afterMb: number;
  readonly samples: number;
  readonly maxGapMs: number;
  readonly proxyCpuMs: number;
  readonly clientCpuMs: number;
}

/** Streams `/big` through `target`, reads and discards it, samples RSS every RSS_INTERVAL_MS. */
async function streamBig(target: Target): Promise<BigResult> {
  const pids = target.rssPids();
  const baseline: number[] = [];
  for (let waited = 0; waited < RSS_BASELINE_MS; waited += RSS_INTERVAL_MS) {
    baseline.push(rssMb(pids));
    await sleep(RSS_INTERVAL_MS);
  }
  const hwmReset = resetHwm(pids);
  const samples: Array<{ at: number; mb: number }> = [];
  const sample = (): void => {
    samples.push({ at: performance.now(), mb: rssMb(pids) });
  };
  const cpuBefore = sumOf(target.proxyPids().map((pid) => processCpuMs(pid) ?? 0));
  const clientBefore = process.cpuUsage();
  const client = new Client(target.origin, { bodyTimeout: 30_000, headersTimeout: 30_000 });
  sample();
  const timer = setInterval(sample, RSS_INTERVAL_MS);
  const started = performance.now();
  let bytes = 0;
  let status = 0;
  try {
    const response = await client.request({
      path: target.bigPath,
      method: 'GET',
      headers: target.headers,
      signal: AbortSignal.timeout(BIG_TIMEOUT_MS),
    });
    status = response.statusCode;
    for await (const chunk of response.body) bytes += (chunk as Buffer).length;
  } finally {
    clearInterval(timer);
    await client.close();
  }
  const seconds = (performance.now() - started) / 1000;
  sample();
  const clientUsed = process.cpuUsage(clientBefore);
  const proxyCpuMs = sumOf(target.proxyPids().map((pid) => processCpuMs(pid) ?? 0)) - cpuBefore;
  const hwm = hwmReset ? hwmMb(pids) : Number.NaN;
  if (status !== 200 || bytes !== BIG_BYTES) {
    throw new Error(
      `${target.name}: GET ${target.bigPath} answered ${status} with ${bytes} bytes, expected ${BIG_BYTES}`,
    );
  }
  await sleep(1_000);
  let maxGapMs = 0;
  for (let index = 1; index < samples.length; index += 1) {
    const gap = (samples[index]?.at ?? 0) - (samples[index - 1]?.at ?? 0);
    maxGapMs = Math.max(maxGapMs, gap);
  }
  return {
    target,
    bytes,
    seconds,
    baselineMb: summarize(baseline).median,
    peakMb: Math.max(...samples.map((entry) => entry.mb)),
    hwmMb: hwm,
    afterMb: rssMb(pids),
    samples: samples.length,
    maxGapMs,
    proxyCpuMs,
    clientCpuMs: (clientUsed.user + clientUsed.system) / 1000,
  };
}

// ---------------------------------------------------------------------------------------------
// Output

const pct = (part: number, whole: number): string => `${fixed((100 * part) / whole, 0)} %`;

function latencyCells(summary: Summary): string[] {
  return [
    String(summary.count),
    fixed(summary.min),
    fixed(summary.median),
    fixed(summary.p90),
    fixed(summary.p99),
    fixed(summary.max),
  ];
}

function cpuRow(label: string, result: Measured): string[] {
  const requests = result.latencies.length;
  const per = (ms: number): string => fixed(ms / requests, 3);
  const { cpu } = result;
  const isJunction = result.target.servicePid !== undefined;
  return [
    label,
    result.target.proxyPids().length === 0 ? '-' : per(cpu.proxy),
    isJunction ? per(cpu.proxyMain) : '-',
    isJunction ? pct(cpu.proxyMain, result.elapsedMs) : '-',
    result.target.proxyPids().length === 0 ? '-' : pct(cpu.proxy, result.elapsedMs),
    isJunction ? per(cpu.backends) : '-',
    per(cpu.upstream),
    per(cpu.client),
    pct(cpu.client, result.elapsedMs),
    cpu.machineTotalMs > 0 ? per(cpu.machineBusyMs) : '-',
    cpu.machineTotalMs > 0 ? pct(cpu.machineBusyMs, cpu.machineTotalMs) : '-',
    cpu.machineTotalMs > 0 ? pct(cpu.stealMs, cpu.machineTotalMs) : '-',
  ];
}

const CPU_HEADER = [
  '',
  'proxy CPU/req',
  'of it JS thread',
  'JS thread busy',
  'proxy busy (of 1 core)',
  'PostgreSQL CPU/req',
  'upstream CPU/req',
  'client CPU/req',
  'client busy (of 1 core)',
  'machine CPU/req',
  'machine busy',
  'steal',
];

/** Request log lines for `/proxy/item` a service wrote. */
function requestLines(api: ApiService): number {
  return api.service
    .output()
    .split('\n')
    .filter((line) => line.includes('"url":"/proxy/item"')).length;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const machine = machineLine();
  const loadAtStart = loadLine();
  log(`machine: ${machine}`);
  const notes: string[] = [];
  const nginxFound = findNginx();
  log(nginxFound.note);
  notes.push(nginxFound.note);

  const workDir = mkdtempSync(join(tmpdir(), 'junction-bench-'));
  onCleanup('bench work folder', () => rmSync(workDir, { recursive: true, force: true }));

  const upstream = await startUpstream();
  log(`upstream at ${upstream.origin}, pid ${upstream.pid}`);

  let nginx: Nginx | undefined;
  if (nginxFound.path) {
    try {
      nginx = await startNginx(nginxFound.path, upstream.port, workDir);
      notes.push(`nginx: ${nginx.version}, worker_processes ${NGINX_WORKERS}`);
    } catch (error) {
      const message = `nginx could not be started, nginx column skipped: ${String(error)}`;
      log(message);
      notes.push(message);
    }
  }

  const backends = await startBackends(workDir);
  const { env, secretKey } = apiEnvironment(backends, 'b1');
  const adminClient = new PgClient({ connectionString: backends.databaseUrl });
  await adminClient.connect();
  admin = adminClient;
  onCleanup('PostgreSQL admin client', async () => {
    admin = undefined;
    await adminClient.end();
  });
  const services: Array<{ level: string; name: string; api: ApiService }> = [];
  for (const [index, level] of LOG_LEVELS.entries()) {
    // The same level twice (an A/A comparison) gets numbered names.
    const name =
      LOG_LEVELS.indexOf(level) === LOG_LEVELS.lastIndexOf(level)
        ? level
        : `${level} #${index + 1}`;
    const api = await startApi(
      `junction api (LOG_LEVEL=${name})`,
      { ...env, LOG_LEVEL: level },
      join(workDir, `api-${index + 1}-${level}.log`),
    );
    if (services.length === 0) await setUpJunction(api.baseUrl, secretKey, upstream.port);
    services.push({ level, name, api });
  }

  const callerHeaders = {
    authorization: `Bearer ${secretKey}`,
    'connection-id': CONNECTION,
    'provider-config-key': INTEGRATION,
  };
  const targets: Target[] = [
    {
      name: 'direct',
      origin: upstream.origin,
      itemPath: '/item',
      bigPath: '/big',
      headers: { authorization: UPSTREAM_AUTHORIZATION },
      proxyPids: () => [],
      rssPids: () => [upstream.pid],
      rssWhat: 'upstream process',
    },
  ];
  if (nginx) {
    const found = nginx;
    for (const [name, origin] of [
      [`nginx (${NGINX_WORKERS} worker${NGINX_WORKERS === '1' ? '' : 's'})`, found.origin],
      [NGINX_LOGGING, found.loggingOrigin],
    ] as const) {
      targets.push({
        name,
        origin,
        itemPath: '/proxy/item',
        bigPath: '/proxy/big',
        headers: callerHeaders,
        proxyPids: () => found.pids(),
        rssPids: () => found.workerPids(),
        rssWhat: 'nginx worker',
      });
    }
  }
  for (const { name, api } of services) {
    const pid = api.service.child.pid;
    if (pid === undefined) throw new Error('The service has no pid');
    targets.push({
      name: `Junction, LOG_LEVEL=${name}`,
      origin: api.baseUrl,
      itemPath: '/proxy/item',
      bigPath: '/proxy/big',
      headers: callerHeaders,
      proxyPids: () => [pid],
      servicePid: pid,
      rssPids: () => [pid],
      rssWhat: 'service process',
    });
  }

  // Every target answers the item once before anything is timed.
  for (const target of targets) {
    const client = new Client(target.origin);
    try {
      await getItem(client, target, { sent: 0 });
    } finally {
      await client.close();
    }
  }

  const sequentialResults = PARTS.has('node') ? await measureSequential(targets, upstream) : [];
  const concurrentResults = PARTS.has('node') ? await measureConcurrent(targets, upstream) : [];
  const wrkFound = PARTS.has('wrk') ? debianTool('wrk', 'wrk') : { note: 'wrk: not run' };
  notes.push(wrkFound.note);
  const wrkResults = wrkFound.path
    ? await measureWithWrk(wrkFound.path, targets, upstream, workDir)
    : [];
  const bigResults: BigResult[] = [];
  for (const target of PARTS.has('big') ? targets : []) {
    log(`GET ${target.bigPath} through ${target.name}: ${BIG_BYTES / MB} MiB`);
    bigResults.push(await phase(`${target.name}, /big`, () => streamBig(target)));
  }

  const logLines = services.map(({ name, api }) => ({ level: name, lines: requestLines(api) }));
  for (const { api } of services) await api.stop();

  // -------------------------------------------------------------------------------------------
  const direct = (results: Measured[]): Measured | undefined =>
    results.find((result) => result.target.name === 'direct');
  const nginxOf = (results: Measured[]): Measured | undefined =>
    results.find((result) => result.target.name.startsWith('nginx'));
  const sequentialDirect = direct(sequentialResults);
  const directMedian = sequentialDirect ? summarize(sequentialDirect.latencies).median : Number.NaN;

  process.stdout.write(
    `\nMachine: ${machine}\nLoad average (1/5/15 min): ${loadAtStart} at start, ${loadLine()} at end\n`,
  );
  process.stdout.write(
    `\nGET /item (${ITEM_BYTES}-byte JSON) from a node:http upstream: direct, through nginx proxy_pass ` +
      `(upstream keepalive 64), and through Junction's GET /proxy/item (API_KEY connection, ` +
      `Authorization: Bearer \${apiKey}). All on 127.0.0.1.\n`,
  );
  const concurrentDirect = direct(concurrentResults);
  const concurrentNginx = nginxOf(concurrentResults);
  const perSecond = (result: Measured | undefined): number =>
    result ? (result.latencies.length * 1000) / result.elapsedMs : Number.NaN;
  if (sequentialResults.length > 0) {
    process.stdout.write(
      `\nSequential (concurrency 1, one keep-alive connection per target; ${ROUNDS} interleaved rounds of ` +
        `${REQUESTS_PER_ROUND}, after ${FIRST_WARMUP_REQUESTS} warm-up in the first and ${ROUND_WARMUP_REQUESTS} ` +
        `in each later round), latency in ms:\n`,
    );
    printTable([
      ['', 'requests', 'min', 'median', 'p90', 'p99', 'max', 'req/s', 'added median vs direct'],
      ...sequentialResults.map((result) => {
        const summary = summarize(result.latencies);
        return [
          result.target.name,
          ...latencyCells(summary),
          fixed((result.latencies.length * 1000) / result.elapsedMs, 0),
          result === sequentialDirect ? '-' : fixed(summary.median - directMedian, 3),
        ];
      }),
    ]);

    process.stdout.write(
      `\nConcurrency ${CONCURRENCY} for ${CONCURRENT_SECONDS} s (${CONCURRENCY} keep-alive connections, after ` +
        `${CONCURRENT_WARMUP_ROUNDS} unmeasured rounds), latency in ms:\n`,
    );
    printTable([
      ['', 'requests', 'min', 'median', 'p90', 'p99', 'max', 'req/s', 'vs direct', 'vs nginx'],
      ...concurrentResults.map((result) => [
        result.target.name,
        ...latencyCells(summarize(result.latencies)),
        fixed(perSecond(result), 0),
        fixed(perSecond(result) / perSecond(concurrentDirect)),
        concurrentNginx ? fixed(perSecond(result) / perSecond(concurrentNginx)) : '-',
      ]),
    ]);

    process.stdout.write(
      `\nCPU ms per request and busy share (of one core; the machine has 2), same runs. ` +
        `proxy: the nginx master and workers, or the service process (all threads):\n`,
    );
    printTable([
      CPU_HEADER,
      ...sequentialResults.map((result) => cpuRow(`${result.target.name}, c=1`, result)),
      ...concurrentResults.map((result) =>
        cpuRow(`${result.target.name}, c=${CONCURRENCY}`, result),
      ),
    ]);

    for (const result of [...sequentialResults, ...concurrentResults]) {
      const clientBusy = result.cpu.client / result.elapsedMs;
      const mainBusy = result.cpu.proxyMain / result.elapsedMs;
      const phaseName = sequentialResults.includes(result) ? 'c=1' : `c=${CONCURRENCY}`;
      if (clientBusy >= CLIENT_SATURATED)
        process.stdout.write(
          `note: ${result.target.name}, ${phaseName}: the bench client used ${fixed(100 * clientBusy, 0)} % of a core: ` +
            `this row is bounded by the client, not by what it measures\n`,
        );
      if (mainBusy >= CLIENT_SATURATED)
        process.stdout.write(
          `note: ${result.target.name}, ${phaseName}: the service's JavaScript thread was busy ${fixed(100 * mainBusy, 0)} % of the time: ` +
            `this row is bounded by the service's CPU\n`,
        );
    }
  }
  if (bigResults.length > 0) {
    process.stdout.write(
      `\nGET /big: ${BIG_BYTES} bytes (${BIG_BYTES / MB} MiB) in ${CHUNK_BYTES / 1024} KiB chunks, read and ` +
        `discarded by the client; RSS sampled every ${RSS_INTERVAL_MS} ms (baseline: median over ` +
        `${RSS_BASELINE_MS} ms before; VmHWM: the kernel's peak after a reset just before), MiB:\n`,
    );
    printTable([
      [
        '',
        'RSS of',
        'bytes',
        's',
        'MiB/s',
        'baseline RSS',
        'peak RSS',
        'growth',
        'VmHWM growth',
        'RSS 1 s after',
        'samples',
        'max gap ms',
        'proxy CPU s',
        'client CPU s',
      ],
      ...bigResults.map((result) => [
        result.target.name,
        result.target.rssWhat,
        String(result.bytes),
        fixed(result.seconds),
        fixed(result.bytes / MB / result.seconds, 0),
        fixed(result.baselineMb, 1),
        fixed(result.peakMb, 1),
        fixed(result.peakMb - result.baselineMb, 1),
        fixed(result.hwmMb - result.baselineMb, 1),
        fixed(result.afterMb, 1),
        String(result.samples),
        fixed(result.maxGapMs, 0),
        result.target.proxyPids().length === 0 ? '-' : fixed(result.proxyCpuMs / 1000),
        fixed(result.clientCpuMs / 1000),
      ]),
    ]);
  }
  process.stdout.write('\n');
  for (const result of [...sequentialResults, ...concurrentResults]) {
    const phaseName = sequentialResults.includes(result) ? 'c=1' : `c=${CONCURRENCY}`;
    const ok = result.upstreamItems === result.latencies.length;
    process.stdout.write(
      `${result.target.name}, ${phaseName}: the upstream served ${result.upstreamItems} /item for ` +
        `${result.latencies.length} measured requests${ok ? '' : ' (MISMATCH)'}, and accepted ` +
        `${result.upstreamConnections} new TCP connections meanwhile\n`,
    );
  }
  for (const { level, lines } of logLines)
    process.stdout.write(
      `Junction LOG_LEVEL=${level}: ${lines} request log lines for /proxy/item\n`,
    );
  for (const note of notes) process.stdout.write(`${note}\n`);

  if (wrkResults.length > 0) {
    const wrkDirect = wrkResults.find((result) => result.target.name === 'direct');
    const wrkNginx = wrkResults.find((result) => result.target.name.startsWith('nginx'));
    const wrkNginxLogging = wrkResults.find((result) => result.target.name === NGINX_LOGGING);
    const versus = (result: WrkMeasured, reference: WrkMeasured | undefined): number =>
      reference ? result.concurrent.row.perSecond / reference.concurrent.row.perSecond : Number.NaN;
    process.stdout.write(
      `\nThe same GET /item from wrk (C, one thread; ${WRK_SECONDS} s at concurrency 1, then ${WRK_ROUNDS} interleaved rounds of ${WRK_SECONDS} s at ${CONCURRENCY}, the median round shown), latency in ms:\n`,
    );
    printTable([
      [
        '',
        'median c=1',
        'p99 c=1',
        'added median vs direct',
        `req/s c=${CONCURRENCY}`,
        'rounds req/s',
        `median c=${CONCURRENCY}`,
        `p99 c=${CONCURRENCY}`,
        'vs direct',
        'vs nginx',
        'vs nginx, access log',
        `service CPU/req c=${CONCURRENCY}`,
      ],
      ...wrkResults.map((result) => [
        result.target.name,
        fixed(result.sequential.row.summary.median, 3),
        fixed(result.sequential.row.summary.p99),
        wrkDirect
          ? fixed(result.sequential.row.summary.median - wrkDirect.sequential.row.summary.median, 3)
          : '-',
        fixed(result.concurrent.row.perSecond, 0),
        result.rounds.map((round) => fixed(round.row.perSecond, 0)).join(' '),
        fixed(result.concurrent.row.summary.median),
        fixed(result.concurrent.row.summary.p99),
        wrkDirect
          ? fixed(result.concurrent.row.perSecond / wrkDirect.concurrent.row.perSecond)
          : '-',
        wrkNginx ? fixed(versus(result, wrkNginx)) : '-',
        wrkNginxLogging ? fixed(versus(result, wrkNginxLogging)) : '-',
        result.concurrent.row.serviceCpuMs === undefined
          ? '-'
          : fixed(result.concurrent.row.serviceCpuMs, 3),
      ]),
    ]);
    process.stdout.write(
      '\nTargets by wrk (the like-for-like nginx: at LOG_LEVEL=info both write a line per request):\n',
    );
    for (const result of wrkResults.filter((r) => r.target.servicePid !== undefined)) {
      const added = wrkDirect
        ? result.sequential.row.summary.median - wrkDirect.sequential.row.summary.median
        : Number.NaN;
      const logs = result.target.name.includes('LOG_LEVEL=info');
      const reference = logs && wrkNginxLogging ? wrkNginxLogging : wrkNginx;
      const ratio = versus(result, reference);
      const plain = versus(result, wrkNginx);
      process.stdout.write(
        `  ${result.target.name}: added median latency at c=1 ${fixed(added, 3)} ms (< ${TARGET_ADDED_MS}: ${added < TARGET_ADDED_MS ? 'met' : 'NOT met'}); ` +
          `${fixed(result.concurrent.row.perSecond, 0)} req/s at c=${CONCURRENCY}, ${fixed(ratio)}x ${reference?.target.name ?? 'nginx'} ` +
          `(>= ${TARGET_RATIO_VS_NGINX}: ${ratio >= TARGET_RATIO_VS_NGINX ? 'met' : 'NOT met'})` +
          (reference === wrkNginx ? '' : `; ${fixed(plain)}x nginx without a log`) +
          '\n',
      );
    }
  }

  if (sequentialResults.length > 0) {
    process.stdout.write('\nTargets by the Node client:\n');
    const junctionSequential = sequentialResults.filter((r) => r.target.servicePid !== undefined);
    const sequentialNginx = nginxOf(sequentialResults);
    if (sequentialNginx)
      process.stdout.write(
        `  nginx added median latency (reference): ${fixed(summarize(sequentialNginx.latencies).median - directMedian, 3)} ms\n`,
      );
    for (const result of junctionSequential) {
      const added = summarize(result.latencies).median - directMedian;
      process.stdout.write(
        `  ${result.target.name}: added median latency at c=1 ${fixed(added, 3)} ms ` +
          `(< ${TARGET_ADDED_MS}: ${added < TARGET_ADDED_MS ? 'met' : 'NOT met'})\n`,
      );
    }
    for (const result of concurrentResults.filter((r) => r.target.servicePid !== undefined)) {
      const ratio = perSecond(result) / perSecond(concurrentNginx);
      process.stdout.write(
        `  ${result.target.name}: ${fixed(perSecond(result), 0)} req/s at c=${CONCURRENCY}, ` +
          (concurrentNginx
            ? `${fixed(ratio)}x nginx (>= ${TARGET_RATIO_VS_NGINX}: ${ratio >= TARGET_RATIO_VS_NGINX ? 'met' : 'NOT met'})`
            : 'no nginx to compare with') +
          `, ${fixed(perSecond(result) / perSecond(concurrentDirect))}x direct\n`,
      );
    }
  }
  for (const result of bigResults.filter((r) => r.target.servicePid !== undefined)) {
    const growth = Math.max(result.peakMb, result.hwmMb || 0) - result.baselineMb;
    process.stdout.write(
      `  ${result.target.name}: RSS growth while streaming ${BIG_BYTES / MB} MiB ${fixed(growth, 1)} MiB ` +
        `(< ${TARGET_RSS_GROWTH_MB}: ${growth < TARGET_RSS_GROWTH_MB ? 'met' : 'NOT met'}), ` +
        `${fixed(result.bytes / MB / result.seconds, 0)} MiB/s\n`,
    );
  }
}

runBench(main);

/**
 * A sync of 100,000 records (about 1 KB each) from a local fake API, end to end: `junction api`
 * and one `junction worker` process, the bench script deployed like any script, a trigger
 * through the API, and the wall time until the run is recorded as finished. Then the same sync
 * again, when every record is unchanged.
 *
 *   npm run build && npm run bench:sync
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client as PgClient } from 'pg';
import { bundleScript } from '../src/cli/bundle';
import {
  apiEnvironment,
  fixed,
  loadLine,
  log,
  machineLine,
  onCleanup,
  printTable,
  processCpuMs,
  runBench,
  spawnService,
  startApi,
  startBackends,
  tail,
} from './common';

const RECORDS = Number(process.env.BENCH_SYNC_RECORDS ?? 100_000);
const FILLER = 'lorem ipsum dolor sit amet '.repeat(34).slice(0, 900);

function item(n: number): string {
  return JSON.stringify({
    id: `item-${n}`,
    n,
    name: `Item number ${n}`,
    description: FILLER,
    tags: ['bench', `group-${n % 10}`],
    updated_at: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  });
}

/** The fake API: `GET /items?limit=&cursor=`, cursor pagination, an API key required. */
async function startFakeApi(apiKey: string): Promise<{ url: string; pages: () => number }> {
  let pages = 0;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (request.headers['x-api-key'] !== apiKey || url.pathname !== '/items') {
      response.writeHead(401).end();
      return;
    }
    pages += 1;
    const limit = Math.min(1000, Number(url.searchParams.get('limit') ?? 100));
    const start = Number(url.searchParams.get('cursor') ?? 0);
    const end = Math.min(RECORDS, start + limit);
    const items: string[] = [];
    for (let n = start; n < end; n += 1) items.push(item(n));
    const next = end < RECORDS ? JSON.stringify(String(end)) : 'null';
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(`{"items":[${items.join(',')}],"next_cursor":${next}}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup('fake API', () => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pages: () => pages,
  };
}

async function call<T>(
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300)
    throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

interface Run {
  status: string;
  type: string;
  started_at: string;
  finished_at: string | null;
  results: Record<string, { added: number; updated: number; deleted: number }>;
  workflow_id: string;
  error: unknown;
}

async function measureRun(baseUrl: string, key: string, pids: { worker: number; api: number }) {
  const cpuBefore = { worker: processCpuMs(pids.worker) ?? 0, api: processCpuMs(pids.api) ?? 0 };
  const started = performance.now();
  const triggered = await call<{ runs: { workflow_id: string }[] }>(
    baseUrl,
    key,
    'POST',
    '/sync/trigger',
    {
      provider_config_key: 'bench',
      connection_id: 'c',
      syncs: ['bench-items'],
    },
  );
  const workflowId = triggered.runs[0]?.workflow_id;
  for (;;) {
    const { runs } = await call<{ runs: Run[] }>(
      baseUrl,
      key,
      'GET',
      '/sync/runs?provider_config_key=bench&connection_id=c&sync=bench-items',
    );
    const run = runs.find((candidate) => candidate.workflow_id === workflowId);
    if (run && run.status !== 'RUNNING') {
      const wall = performance.now() - started;
      if (run.status !== 'SUCCESS') throw new Error(`the run failed: ${JSON.stringify(run.error)}`);
      return {
        run,
        wallMs: wall,
        workerCpuMs: (processCpuMs(pids.worker) ?? 0) - cpuBefore.worker,
        apiCpuMs: (processCpuMs(pids.api) ?? 0) - cpuBefore.api,
      };
    }
    await sleep(100);
  }
}

runBench(async () => {
  const work = mkdtempSync(join(tmpdir(), 'junction-bench-sync-'));
  onCleanup('work folder', () => rmSync(work, { recursive: true, force: true }));
  console.log(`Machine: ${machineLine()}`);
  console.log(`Load average (1/5/15 min): ${loadLine()} at start`);
  const backends = await startBackends(work);
  const { env, secretKey } = apiEnvironment(backends);
  const common = { ...env, LOG_LEVEL: 'warn' };
  const api = await startApi('junction api', common, join(work, 'api.log'));
  const workerLog = join(work, 'worker.log');
  const worker = spawnService('worker', { env: common, logFile: workerLog });
  onCleanup('junction worker', async () => {
    await worker.stop();
  });
  const deadline = Date.now() + 60_000;
  while (!readFileSync(workerLog, 'utf8').includes('Junction worker started')) {
    if (Date.now() > deadline)
      throw new Error(`the worker did not start:\n${tail(worker.output())}`);
    await sleep(100);
  }
  log(`worker polling, pid ${worker.child.pid}`);

  const fake = await startFakeApi('bench-key');
  const key = secretKey;
  await call(api.baseUrl, key, 'PUT', '/providers/bench-items-api', {
    display_name: 'Bench items',
    auth_mode: 'API_KEY',
    proxy: { base_url: fake.url, headers: { 'X-Api-Key': '${apiKey}' } },
    docs: 'https://example.com/docs',
  });
  await call(api.baseUrl, key, 'POST', '/config', {
    provider: 'bench-items-api',
    provider_config_key: 'bench',
  });
  await call(api.baseUrl, key, 'POST', '/connection', {
    provider_config_key: 'bench',
    connection_id: 'c',
    api_key: 'bench-key',
  });
  const { bundle, definition } = await bundleScript(
    join(__dirname, '..', '..', 'bench', 'scripts', 'items.ts'),
  );
  await call(api.baseUrl, key, 'POST', '/scripts/deploy', {
    scripts: [{ kind: 'sync', name: definition.name, integration: 'bench', definition, bundle }],
  });

  const pids = { worker: worker.child.pid ?? 0, api: api.service.child.pid ?? 0 };
  log(`first run: ${RECORDS} new records`);
  const first = await measureRun(api.baseUrl, key, pids);
  log('second run: every record unchanged');
  const second = await measureRun(api.baseUrl, key, pids);

  const pg = new PgClient({ connectionString: backends.databaseUrl });
  await pg.connect();
  const [stored] = (
    await pg.query<{ count: string }>("SELECT count(*) FROM records WHERE model = 'Item'")
  ).rows;
  await pg.end();

  console.log('');
  console.log(
    `Sync of ${RECORDS.toLocaleString('en')} records of about 1 KB from a local fake API (1,000 per page), one junction worker, trigger through the API until the run is recorded:`,
  );
  const row = (label: string, result: Awaited<ReturnType<typeof measureRun>>) => {
    const counts = result.run.results.Item ?? { added: 0, updated: 0, deleted: 0 };
    const runMs = Date.parse(result.run.finished_at ?? '') - Date.parse(result.run.started_at);
    return [
      label,
      result.run.type,
      `${counts.added}/${counts.updated}/${counts.deleted}`,
      fixed(result.wallMs / 1000, 1),
      fixed(runMs / 1000, 1),
      fixed(RECORDS / (result.wallMs / 1000), 0),
      fixed(result.workerCpuMs / 1000, 1),
    ];
  };
  printTable([
    [
      'run',
      'type',
      'added/updated/deleted',
      'wall s',
      'run s (recorded)',
      'records/s',
      'worker CPU s',
    ],
    row('first (all new)', first),
    row('second (unchanged)', second),
  ]);
  console.log('');
  console.log(`records stored: ${stored?.count}; fake API pages served: ${fake.pages()}`);
  console.log(`Load average (1/5/15 min): ${loadLine()} at end`);
  if (Number(stored?.count) !== RECORDS) throw new Error(`expected ${RECORDS} records stored`);
});

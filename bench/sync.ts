/**
 * A sync of 100,000 records (about 1 KB each) from a local fake API, end to end: `junction api`
 * and one `junction worker` process, the bench script deployed like any script, a trigger
 * through the API, and the wall time until the run is recorded as finished. Then the same sync
 * again, when every record is unchanged.
 *
 *   npm run build && npm run bench:sync
 */
import { mkdtempSync, rmSync } from 'node:fs';
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
  type JsonCall,
  jsonCaller,
  loadLine,
  log,
  machineLine,
  onCleanup,
  printTable,
  processCpuMs,
  runBench,
  startApi,
  startBackends,
  startWorker,
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

interface Run {
  id: string;
  status: string;
  type: string;
  started_at: string;
  finished_at: string | null;
  results: Record<string, { added: number; updated: number; deleted: number }>;
  workflow_id: string;
  error: unknown;
}

async function latestRunId(call: JsonCall): Promise<number> {
  const { runs } = await call<{ runs: Run[] }>(
    'GET',
    '/sync/runs?provider_config_key=bench&connection_id=c&sync=bench-items&limit=1',
  );
  return Number(runs[0]?.id ?? 0);
}

async function measureRun(call: JsonCall, pids: { worker: number; api: number }) {
  const cpuBefore = { worker: processCpuMs(pids.worker) ?? 0, api: processCpuMs(pids.api) ?? 0 };
  const before = await latestRunId(call);
  const started = performance.now();
  await call('POST', '/sync/trigger', {
    provider_config_key: 'bench',
    connection_id: 'c',
    syncs: ['bench-items'],
  });
  for (;;) {
    const { runs } = await call<{ runs: Run[] }>(
      'GET',
      '/sync/runs?provider_config_key=bench&connection_id=c&sync=bench-items&limit=1',
    );
    const run = runs[0];
    if (run && Number(run.id) > before && run.status !== 'RUNNING') {
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
  const worker = await startWorker(common, join(work, 'worker.log'));

  const fake = await startFakeApi('bench-key');
  const call = jsonCaller(api.baseUrl, secretKey);
  await call('PUT', '/providers/bench-items-api', {
    display_name: 'Bench items',
    auth_mode: 'API_KEY',
    proxy: { base_url: fake.url, headers: { 'X-Api-Key': '${apiKey}' } },
    docs: 'https://example.com/docs',
  });
  await call('POST', '/config', {
    provider: 'bench-items-api',
    provider_config_key: 'bench',
  });
  await call('POST', '/connection', {
    provider_config_key: 'bench',
    connection_id: 'c',
    api_key: 'bench-key',
  });
  const { bundle, definition } = await bundleScript(
    join(__dirname, '..', '..', 'bench', 'scripts', 'items.ts'),
  );
  await call('POST', '/scripts/deploy', {
    scripts: [{ kind: 'sync', name: definition.name, integration: 'bench', definition, bundle }],
  });

  const pids = { worker: worker.child.pid ?? 0, api: api.service.child.pid ?? 0 };
  log(`first run: ${RECORDS} new records`);
  const first = await measureRun(call, pids);
  log('second run: every record unchanged');
  const second = await measureRun(call, pids);

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

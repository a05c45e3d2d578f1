/**
 * Schedules and runs on Temporal, end to end (`junction api` + one `junction worker`):
 *
 * 1. trigger → SUCCESS of a sync that saves nothing, 30 times in a row (median, p90, max);
 * 2. creating the schedules of 1,000 connections (one sync each) in one deploy: time and rate;
 * 3. those 1,000 connections running a 1-minute sync on the one worker for BENCH_MINUTES
 *    (default 10): runs completed against runs scheduled, and the lag between a run's scheduled
 *    time and its start (median, p99).
 *
 *   npm run build && npm run bench:schedules
 */
import { mkdtempSync, rmSync } from 'node:fs';
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
  summarize,
  tail,
} from './common';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 1_000);
const MINUTES = Number(process.env.BENCH_MINUTES ?? 10);
const TRIGGERS = 30;
const SCRIPTS = join(__dirname, '..', '..', 'bench', 'scripts');

interface Run {
  id: string;
  status: string;
}

async function deploy(call: JsonCall, files: string[]): Promise<void> {
  const scripts = [];
  for (const file of files) {
    const { bundle, definition } = await bundleScript(join(SCRIPTS, file));
    scripts.push({
      kind: 'sync',
      name: definition.name,
      integration: definition.integration,
      definition,
      bundle,
    });
  }
  await call('POST', '/scripts/deploy', { scripts, allow_removals: true });
}

async function latestRun(call: JsonCall): Promise<Run | undefined> {
  const { runs } = await call<{ runs: Run[] }>(
    'GET',
    '/sync/runs?provider_config_key=latency&connection_id=c&sync=noop&limit=1',
  );
  return runs[0];
}

runBench(async () => {
  const work = mkdtempSync(join(tmpdir(), 'junction-bench-schedules-'));
  onCleanup('work folder', () => rmSync(work, { recursive: true, force: true }));
  console.log(`Machine: ${machineLine()}`);
  console.log(`Load average (1/5/15 min): ${loadLine()} at start`);
  const backends = await startBackends(work);
  const { env, secretKey } = apiEnvironment(backends);
  const common = { ...env, LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '10' };
  const api = await startApi('junction api', common, join(work, 'api.log'));
  const worker = await startWorker(common, join(work, 'worker.log'));
  const call = jsonCaller(api.baseUrl, secretKey);
  for (const key of ['latency', 'load']) {
    await call('PUT', `/providers/bench-${key}`, {
      display_name: key,
      auth_mode: 'API_KEY',
      proxy: { base_url: 'http://127.0.0.1:9', headers: { 'X-Api-Key': '${apiKey}' } },
      docs: 'https://example.com/docs',
    });
    await call('POST', '/config', { provider: `bench-${key}`, provider_config_key: key });
  }

  // 1. Trigger to SUCCESS.
  await call('POST', '/connection', {
    provider_config_key: 'latency',
    connection_id: 'c',
    api_key: 'k',
  });
  await deploy(call, ['noop.ts']);
  while ((await latestRun(call))?.status !== 'SUCCESS') await sleep(50);
  const latencies: number[] = [];
  for (let index = 0; index < TRIGGERS; index += 1) {
    const before = Number((await latestRun(call))?.id ?? 0);
    const started = performance.now();
    await call('POST', '/sync/trigger', {
      provider_config_key: 'latency',
      connection_id: 'c',
      syncs: ['noop'],
    });
    for (;;) {
      const run = await latestRun(call);
      if (run && Number(run.id) > before && run.status !== 'RUNNING') {
        if (run.status !== 'SUCCESS') throw new Error(`run ${run.id} ended ${run.status}`);
        break;
      }
      await sleep(10);
    }
    latencies.push(performance.now() - started);
  }
  const latency = summarize(latencies);
  log(`trigger to SUCCESS: median ${fixed(latency.median)} ms`);

  // 2. Schedules of 1,000 connections, created by one deploy.
  const importStarted = performance.now();
  const ids = Array.from({ length: CONNECTIONS }, (_, index) => `load-${index + 1}`);
  for (let start = 0; start < ids.length; start += 16) {
    await Promise.all(
      ids.slice(start, start + 16).map((id) =>
        call('POST', '/connection', {
          provider_config_key: 'load',
          connection_id: id,
          api_key: 'k',
        }),
      ),
    );
  }
  const importMs = performance.now() - importStarted;
  const deployStarted = performance.now();
  await deploy(call, ['noop.ts', 'tick.ts']);
  const deployMs = performance.now() - deployStarted;
  log(`${CONNECTIONS} schedules created in ${fixed(deployMs / 1000, 1)} s`);

  // 3. The load: every connection's sync every minute, for MINUTES minutes.
  const windowStart = new Date(Math.ceil((Date.now() + 1_000) / 60_000) * 60_000);
  const windowEnd = new Date(windowStart.getTime() + MINUTES * 60_000);
  const cpuBefore = processCpuMs(worker.child.pid) ?? 0;
  log(`observing runs scheduled from ${windowStart.toISOString()} to ${windowEnd.toISOString()}`);
  while (Date.now() < windowEnd.getTime() + 60_000) await sleep(5_000);
  const workerCpuMs = (processCpuMs(worker.child.pid) ?? 0) - cpuBefore;

  const pg = new PgClient({ connectionString: backends.databaseUrl });
  await pg.connect();
  const { rows } = await pg.query<{ workflow_id: string; started_at: Date; status: string }>(
    "SELECT workflow_id, started_at, status FROM sync_runs WHERE sync_name = 'tick'",
  );
  await pg.end();
  const lags: number[] = [];
  let completed = 0;
  let failed = 0;
  for (const row of rows) {
    const match = /-(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)$/.exec(row.workflow_id);
    const scheduled = match?.[1] ? Date.parse(match[1]) : Number.NaN;
    if (!(scheduled >= windowStart.getTime() && scheduled < windowEnd.getTime())) continue;
    if (row.status === 'SUCCESS') completed += 1;
    else if (row.status === 'ERROR') failed += 1;
    lags.push(row.started_at.getTime() - scheduled);
  }
  const scheduledRuns = CONNECTIONS * MINUTES;
  const lag = summarize(lags);

  console.log('');
  console.log(`Trigger → SUCCESS of a sync that saves nothing (${TRIGGERS} in a row), ms:`);
  printTable([
    ['median', 'p90', 'max'],
    [fixed(latency.median), fixed(latency.p90), fixed(latency.max)],
  ]);
  console.log('');
  console.log(`Schedules for ${CONNECTIONS} connections (one sync each):`);
  printTable([
    ['step', 'seconds', 'per second'],
    [
      'import the connections (16 in parallel)',
      fixed(importMs / 1000, 1),
      fixed(CONNECTIONS / (importMs / 1000), 0),
    ],
    [
      'deploy creating their schedules',
      fixed(deployMs / 1000, 1),
      fixed(CONNECTIONS / (deployMs / 1000), 0),
    ],
  ]);
  console.log('');
  console.log(
    `${CONNECTIONS} connections × a 1-minute sync, one worker, runs scheduled in ${MINUTES} minutes:`,
  );
  printTable([
    [
      'scheduled',
      'started',
      'completed',
      'failed',
      'lag median s',
      'lag p99 s',
      'lag max s',
      'worker CPU s',
    ],
    [
      String(scheduledRuns),
      String(lags.length),
      String(completed),
      String(failed),
      fixed(lag.median / 1000, 1),
      fixed(lag.p99 / 1000, 1),
      fixed(lag.max / 1000, 1),
      fixed(workerCpuMs / 1000, 0),
    ],
  ]);
  console.log('');
  console.log(`Load average (1/5/15 min): ${loadLine()} at end`);
  const pauseStarted = performance.now();
  await call('POST', '/sync/pause', { provider_config_key: 'load', syncs: [] }).then(
    () =>
      log(
        `paused the ${CONNECTIONS} schedules in ${fixed((performance.now() - pauseStarted) / 1000, 1)} s`,
      ),
    (error: unknown) => {
      log(`pausing the schedules failed: ${String(error)}`);
      log(`API log (last lines):\n${tail(api.service.output(), 40)}`);
    },
  );
});

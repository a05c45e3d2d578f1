/**
 * Round trip of an action that returns its input, API → Temporal → one worker → API: latency at
 * concurrency 1 (median, p99) and throughput at concurrency 32, with one `junction worker`.
 *
 *   npm run build && npm run bench:actions
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Dispatcher, Pool } from 'undici';
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
  startApi,
  startBackends,
  startWorker,
  summarize,
} from './common';

const SEQUENTIAL = 500;
const WARMUP = 50;
const CONCURRENCY = 32;
const CONCURRENT_SECONDS = 15;

runBench(async () => {
  const work = mkdtempSync(join(tmpdir(), 'junction-bench-actions-'));
  onCleanup('work folder', () => rmSync(work, { recursive: true, force: true }));
  console.log(`Machine: ${machineLine()}`);
  console.log(`Load average (1/5/15 min): ${loadLine()} at start`);
  const backends = await startBackends(work);
  const { env, secretKey } = apiEnvironment(backends);
  const common = { ...env, LOG_LEVEL: 'warn' };
  const api = await startApi('junction api', common, join(work, 'api.log'));
  const worker = await startWorker(common, join(work, 'worker.log'));

  const pool = new Pool(api.baseUrl, { connections: CONCURRENCY });
  onCleanup('HTTP pool', () => pool.close());
  const call = async (
    method: Dispatcher.HttpMethod,
    path: string,
    body?: unknown,
    headers = {},
  ) => {
    const response = await pool.request({
      method,
      path,
      headers: {
        authorization: `Bearer ${secretKey}`,
        'content-type': 'application/json',
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) {
      throw new Error(`${method} ${path} answered ${response.statusCode}: ${text.slice(0, 300)}`);
    }
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  await call('PUT', '/providers/bench-latency', {
    display_name: 'latency',
    auth_mode: 'API_KEY',
    proxy: { base_url: 'http://127.0.0.1:9', headers: { 'X-Api-Key': '${apiKey}' } },
    docs: 'https://example.com/docs',
  });
  await call('POST', '/config', { provider: 'bench-latency', provider_config_key: 'latency' });
  await call('POST', '/connection', {
    provider_config_key: 'latency',
    connection_id: 'c',
    api_key: 'k',
  });
  const { bundle, definition } = await bundleScript(
    join(__dirname, '..', '..', 'bench', 'scripts', 'echo.ts'),
  );
  await call('POST', '/scripts/deploy', {
    scripts: [{ kind: 'action', name: 'echo', integration: 'latency', definition, bundle }],
  });
  const headers = { 'connection-id': 'c', 'provider-config-key': 'latency' };
  let counter = 0;
  const once = async () => {
    const n = (counter += 1);
    const answer = (await call(
      'POST',
      '/action/trigger',
      { action_name: 'echo', input: { n, text: 'hello' } },
      headers,
    )) as { n: number };
    if (answer.n !== n) throw new Error(`answer ${JSON.stringify(answer)} for ${n}`);
  };

  for (let index = 0; index < WARMUP; index += 1) await once();
  const pids = { worker: worker.child.pid ?? 0, api: api.service.child.pid ?? 0 };
  const cpu = () => ({ worker: processCpuMs(pids.worker) ?? 0, api: processCpuMs(pids.api) ?? 0 });
  const sequentialCpu = cpu();
  const latencies: number[] = [];
  for (let index = 0; index < SEQUENTIAL; index += 1) {
    const started = performance.now();
    await once();
    latencies.push(performance.now() - started);
  }
  const afterSequential = cpu();
  log('concurrency 32');
  let completed = 0;
  const concurrentLatencies: number[] = [];
  const stopAt = performance.now() + CONCURRENT_SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < stopAt) {
        const begin = performance.now();
        await once();
        concurrentLatencies.push(performance.now() - begin);
        completed += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const afterConcurrent = cpu();

  const sequential = summarize(latencies);
  const concurrent = summarize(concurrentLatencies);
  console.log('');
  console.log(
    'POST /action/trigger of an action that returns its input (API → Temporal → one worker → API), ms:',
  );
  printTable([
    [
      'concurrency',
      'actions',
      'median',
      'p90',
      'p99',
      'max',
      'actions/s',
      'worker CPU ms/action',
      'API CPU ms/action',
    ],
    [
      '1',
      String(latencies.length),
      fixed(sequential.median),
      fixed(sequential.p90),
      fixed(sequential.p99),
      fixed(sequential.max),
      fixed(latencies.length / (latencies.reduce((a, b) => a + b, 0) / 1000), 0),
      fixed((afterSequential.worker - sequentialCpu.worker) / latencies.length),
      fixed((afterSequential.api - sequentialCpu.api) / latencies.length),
    ],
    [
      String(CONCURRENCY),
      String(completed),
      fixed(concurrent.median),
      fixed(concurrent.p90),
      fixed(concurrent.p99),
      fixed(concurrent.max),
      fixed(completed / elapsed, 0),
      fixed((afterConcurrent.worker - afterSequential.worker) / completed),
      fixed((afterConcurrent.api - afterSequential.api) / completed),
    ],
  ]);
  console.log('');
  console.log('Targets: median < 50 ms and p99 < 200 ms at concurrency 1.');
  console.log(
    `  median ${fixed(sequential.median)} ms (${sequential.median < 50 ? 'met' : 'NOT met'}), p99 ${fixed(sequential.p99)} ms (${sequential.p99 < 200 ? 'met' : 'NOT met'})`,
  );
  console.log(`Load average (1/5/15 min): ${loadLine()} at end`);
});

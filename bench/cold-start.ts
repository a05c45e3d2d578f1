/**
 * Cold start of `junction local` (embedded PGlite + Temporal dev server + API + worker): time
 * from spawning the process to the first `GET /ready` 200, on an empty data folder and then on
 * a restart with the same folder, and the time a SIGTERM takes to stop it.
 *
 *   npm run build && npm run bench:cold-start
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/harness/ports';
import {
  fixed,
  loadLine,
  log,
  machineLine,
  median,
  onCleanup,
  printTable,
  runBench,
  spawnService,
  tail,
  waitReady,
} from './common';

const MAX_REPETITIONS = 3;
/** Stop repeating when another repetition would take the run past this. */
const BUDGET_MS = 120_000;
const POLL_INTERVAL_MS = 50;
const READY_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 60_000;

/** Output lines whose arrival time tells the start-up phases apart. */
const MILESTONES: ReadonlyArray<readonly [string, RegExp]> = [
  ['Nest app built (first log line)', /Starting Nest application/],
  ['migrations done', /Applied migration|"msg":"[^"]*migrat/i],
  ['worker polling', /Worker polling task queue/],
  ['banner printed', /Junction local started/],
];

interface StartResult {
  readonly readyMs: number;
  readonly stopMs: number;
  readonly exitCode: number | string;
  readonly milestones: ReadonlyMap<string, number>;
}

async function startAndStop(dataDir: string, label: string): Promise<StartResult> {
  const [port, temporalPort, temporalUiPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    TEMPORAL_DEV_PORT: String(temporalPort),
    TEMPORAL_DEV_UI_PORT: String(temporalUiPort),
    METRICS_PORT: '0',
  };
  if (process.env.TEMPORAL_CLI_PATH) env.TEMPORAL_CLI_PATH = process.env.TEMPORAL_CLI_PATH;

  const milestones = new Map<string, number>();
  let pending = '';
  let spawnedAt = 0;
  const onOutput = (chunk: string): void => {
    const now = performance.now();
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      for (const [name, pattern] of MILESTONES) {
        if (!milestones.has(name) && pattern.test(line)) milestones.set(name, now - spawnedAt);
      }
    }
  };
  spawnedAt = performance.now();
  const service = spawnService('local', { env, onOutput });
  const stop = onCleanup(`junction local (${label})`, async () => {
    await service.stop(STOP_GRACE_MS);
  });
  const readyAt = await waitReady(`http://127.0.0.1:${port}`, service, {
    intervalMs: POLL_INTERVAL_MS,
    timeoutMs: READY_TIMEOUT_MS,
  });
  const stopStarted = performance.now();
  const exitCode = await service.stop(STOP_GRACE_MS);
  const stopMs = performance.now() - stopStarted;
  await stop();
  if (exitCode !== 0)
    throw new Error(
      `junction local (${label}) exited with ${exitCode} after SIGTERM:\n${tail(service.output())}`,
    );
  return { readyMs: readyAt - spawnedAt, stopMs, exitCode, milestones };
}

/**
 * The pieces `prepareRuntime` and the module loading do before Nest starts, each timed in a
 * fresh Node process (as the service pays them): loading the module graph, opening PGlite, and
 * starting the Temporal dev server, on an empty folder and again on the same folder.
 */
function components(): string[][] {
  const dist = join(__dirname, '..');
  const script = (body: string): string => `
    const started = performance.now();
    const timings = {};
    const mark = (name, since) => { timings[name] = performance.now() - since; };
    (async () => { ${body} })().then(
      () => { process.stdout.write(JSON.stringify(timings)); process.exit(0); },
      (error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1); });`;
  const run = (body: string, args: readonly string[]): Record<string, number> => {
    const result = spawnSync(process.execPath, ['-e', script(body), '--', ...args], {
      encoding: 'utf8',
      timeout: 120_000,
      env: process.env,
    });
    if (result.status !== 0)
      throw new Error(`component timing failed (${result.status}): ${result.stderr}`);
    return JSON.parse(result.stdout) as Record<string, number>;
  };
  const requireMain = `
    require('reflect-metadata');
    const before = performance.now();
    require(${JSON.stringify(join(dist, 'src', 'app', 'service.js'))});
    require(${JSON.stringify(join(dist, 'src', 'config', 'app-config.js'))});
    mark('require', before);`;
  const pglite = `
    const before = performance.now();
    const { openEmbeddedPostgres } = require(${JSON.stringify(join(dist, 'src', 'database', 'embedded-postgres.js'))});
    const opening = performance.now();
    const database = await openEmbeddedPostgres(process.argv[process.argv.length - 1]);
    mark('open', opening);
    const closing = performance.now();
    await database.close();
    mark('close', closing);`;
  const temporal = `
    const { startDevServer } = require(${JSON.stringify(join(dist, 'src', 'temporal', 'dev-server.js'))});
    const { freePort } = require(${JSON.stringify(join(dist, 'test', 'harness', 'ports.js'))});
    const [port, uiPort] = [await freePort(), await freePort()];
    const starting = performance.now();
    const server = await startDevServer({ cliPath: process.env.TEMPORAL_CLI_PATH, databaseFile: process.argv[process.argv.length - 1], port, uiPort });
    mark('start', starting);
    const stopping = performance.now();
    await server.stop();
    mark('stop', stopping);`;
  const folder = mkdtempSync(join(tmpdir(), 'junction-bench-components-'));
  try {
    const load = run(requireMain, []);
    const pgFirst = run(pglite, [join(folder, 'postgres')]);
    const pgAgain = run(pglite, [join(folder, 'postgres')]);
    const temporalFirst = run(temporal, [join(folder, 'temporal.sqlite')]);
    const temporalAgain = run(temporal, [join(folder, 'temporal.sqlite')]);
    const cell = (value: number | undefined): string => fixed(value ?? Number.NaN, 0);
    return [
      ['', 'empty folder', 'same folder again'],
      ['require the service module graph', cell(load.require), '-'],
      ['PGlite open (PGlite.create)', cell(pgFirst.open), cell(pgAgain.open)],
      ['PGlite close', cell(pgFirst.close), cell(pgAgain.close)],
      [
        'Temporal dev server start (until it answers)',
        cell(temporalFirst.start),
        cell(temporalAgain.start),
      ],
      ['Temporal dev server stop', cell(temporalFirst.stop), cell(temporalAgain.stop)],
    ];
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const machine = machineLine();
  const loadAtStart = loadLine();
  log(`machine: ${machine}`);
  const benchStarted = performance.now();
  const firsts: StartResult[] = [];
  const restarts: StartResult[] = [];
  for (let repetition = 1; repetition <= MAX_REPETITIONS; repetition += 1) {
    const repetitionStarted = performance.now();
    const dataDir = mkdtempSync(join(tmpdir(), 'junction-bench-local-'));
    const removeDataDir = onCleanup(`data folder ${dataDir}`, () =>
      rmSync(dataDir, { recursive: true, force: true }),
    );
    try {
      const first = await startAndStop(dataDir, `first start #${repetition}`);
      log(
        `#${repetition} first start: ready after ${fixed(first.readyMs, 0)} ms, stopped in ${fixed(first.stopMs, 0)} ms (exit ${first.exitCode})`,
      );
      firsts.push(first);
      const restart = await startAndStop(dataDir, `restart #${repetition}`);
      log(
        `#${repetition} restart: ready after ${fixed(restart.readyMs, 0)} ms, stopped in ${fixed(restart.stopMs, 0)} ms (exit ${restart.exitCode})`,
      );
      restarts.push(restart);
    } finally {
      await removeDataDir();
    }
    const now = performance.now();
    if (
      now - benchStarted + (now - repetitionStarted) > BUDGET_MS &&
      repetition < MAX_REPETITIONS
    ) {
      log(`stopping after ${repetition} repetition(s) to stay within ~${BUDGET_MS / 1000} s`);
      break;
    }
  }

  const all = (results: readonly StartResult[], pick: (result: StartResult) => number): string =>
    results.map((result) => fixed(pick(result), 0)).join(', ');
  const row = (
    label: string,
    results: readonly StartResult[],
    pick: (result: StartResult) => number,
  ): string[] => [label, fixed(median(results.map(pick)), 0), all(results, pick)];
  process.stdout.write(
    `\nMachine: ${machine}\nLoad average (1/5/15 min): ${loadAtStart} at start, ${loadLine()} at end\n`,
  );
  process.stdout.write(
    `\njunction local, ${firsts.length} repetition(s), ms (median, then each run):\n`,
  );
  printTable([
    ['', 'median', 'runs'],
    row('first start (empty DATA_DIR): spawn -> /ready 200', firsts, (result) => result.readyMs),
    row('first start: SIGTERM -> exit 0', firsts, (result) => result.stopMs),
    row('restart (same DATA_DIR): spawn -> /ready 200', restarts, (result) => result.readyMs),
    row('restart: SIGTERM -> exit 0', restarts, (result) => result.stopMs),
  ]);
  process.stdout.write(
    '\nStart-up phases: when each output line arrived, ms after spawn (median):\n',
  );
  printTable([
    ['', 'first start', 'restart'],
    ...MILESTONES.map(([name]) => [
      name,
      fixed(median(firsts.flatMap((result) => result.milestones.get(name) ?? [])), 0),
      fixed(median(restarts.flatMap((result) => result.milestones.get(name) ?? [])), 0),
    ]),
    [
      '/ready 200',
      fixed(median(firsts.map((result) => result.readyMs)), 0),
      fixed(median(restarts.map((result) => result.readyMs)), 0),
    ],
  ]);
  log('timing the start-up pieces one by one');
  process.stdout.write('\nStart-up pieces, each in a fresh Node process, ms (one run each):\n');
  printTable(components());
  process.stdout.write(
    `\nTotal bench time: ${fixed((performance.now() - benchStarted) / 1000, 1)} s\n`,
  );
}

runBench(main);

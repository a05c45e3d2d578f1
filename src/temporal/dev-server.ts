import { Connection } from '@temporalio/client';
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SEARCH_ATTRIBUTES } from './search-attributes';

export interface DevServerOptions {
  /** Path of the `temporal` CLI; else `temporal` on PATH; else the SDK downloads one. */
  readonly cliPath?: string;
  readonly databaseFile: string;
  readonly ip?: string;
  readonly port: number;
  readonly uiPort: number;
  readonly namespace?: string;
  readonly startTimeoutMs?: number;
}

export interface DevServer {
  readonly address: string;
  readonly uiUrl: string;
  readonly source: 'cli' | 'sdk-download';
  stop(): Promise<void>;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where `scripts/install-temporal-cli.sh` puts the CLI when it is nowhere else. */
const PROJECT_CLI = join(__dirname, '..', '..', '..', '.tools', 'temporal', 'bin', 'temporal');
const SOURCE_CLI = join(__dirname, '..', '..', '.tools', 'temporal', 'bin', 'temporal');

/** TEMPORAL_CLI_PATH, else `temporal` on PATH, else the project's `.tools` copy. */
export function findTemporalCli(
  explicitPath: string | undefined,
  pathVariable = process.env.PATH ?? '',
): string | undefined {
  if (explicitPath) {
    if (!isExecutable(explicitPath))
      throw new Error(`TEMPORAL_CLI_PATH ${explicitPath} is not an executable file`);
    return explicitPath;
  }
  const onPath = pathVariable
    .split(delimiter)
    .filter((directory) => directory !== '')
    .map((directory) => join(directory, 'temporal'));
  return [...onPath, PROJECT_CLI, SOURCE_CLI].find(isExecutable);
}

function searchAttributeArguments(): string[] {
  return Object.values(SEARCH_ATTRIBUTES).flatMap((name) => [
    '--search-attribute',
    `${name}=Keyword`,
  ]);
}

/**
 * Write-ahead logging with `synchronous=NORMAL`: a commit no longer waits for an fsync of the
 * database file (only checkpoints do), which halves the latency of every workflow step on the
 * dev server. A crash of the process loses nothing; a power loss can lose the last commits,
 * which a local dev server can afford.
 */
const SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

/**
 * The dev server has one history shard, and each shard's task queues are read at most 20 times
 * a second by default: every workflow step (a started workflow reaching its worker, a timer
 * firing) then waited up to 50 ms for its turn, which made a synchronous action take 50 ms at
 * concurrency 1. A production cluster spreads workflows over hundreds of shards; lifting the
 * per-shard rate gives the single-shard dev server the same per-workflow latency.
 */
const DYNAMIC_CONFIG = [
  'history.transferProcessorMaxPollRPS=1000',
  'history.timerProcessorMaxPollRPS=1000',
  'history.visibilityProcessorMaxPollRPS=1000',
];

/** Arguments of `temporal server start-dev` beyond addresses and files. */
function tuningArguments(): string[] {
  return [
    ...SQLITE_PRAGMAS.flatMap((pragma) => ['--sqlite-pragma', pragma]),
    ...DYNAMIC_CONFIG.flatMap((value) => ['--dynamic-config-value', value]),
    ...searchAttributeArguments(),
  ];
}

/** Starts a Temporal dev server (with UI) whose state lives in an SQLite file. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const ip = options.ip ?? '127.0.0.1';
  const address = `${ip}:${options.port}`;
  const uiUrl = `http://${ip}:${options.uiPort}`;
  const namespace = options.namespace ?? 'default';
  await mkdir(dirname(options.databaseFile), { recursive: true });
  await assertPortFree(ip, options.port, 'TEMPORAL_DEV_PORT');
  await assertPortFree(ip, options.uiPort, 'TEMPORAL_DEV_UI_PORT');
  const cli = findTemporalCli(options.cliPath);
  if (!cli) return startDownloadedServer(options, ip, uiUrl);

  const child = spawn(
    cli,
    [
      'server',
      'start-dev',
      '--ip',
      ip,
      '--port',
      String(options.port),
      '--ui-port',
      String(options.uiPort),
      '--db-filename',
      options.databaseFile,
      '--namespace',
      namespace,
      '--log-level',
      'error',
      ...tuningArguments(),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  try {
    await waitUntilServing(address, child, options.startTimeoutMs ?? 30_000, () => stderr);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { address, uiUrl, source: 'cli', stop: () => stopChild(child) };
}

/** A dev server left over from another process must not be mistaken for ours. */
function assertPortFree(ip: string, port: number, variable: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', () =>
      reject(
        new Error(
          `Port ${ip}:${port} is taken; stop what uses it or set ${variable} (or TEMPORAL_ADDRESS)`,
        ),
      ),
    );
    probe.listen(port, ip, () => probe.close(() => resolve()));
  });
}

async function waitUntilServing(
  address: string,
  child: ChildProcess,
  timeoutMs: number,
  stderr: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  for (;;) {
    if (exited) throw new Error(`The Temporal dev server exited during start-up: ${stderr()}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.close();
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(
          `The Temporal dev server did not answer on ${address} within ${timeoutMs} ms: ${String(error)}`,
        );
      }
      await sleep(150);
    }
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Without a CLI, the SDK fetches the official dev server build (needs internet access). */
async function startDownloadedServer(
  options: DevServerOptions,
  ip: string,
  uiUrl: string,
): Promise<DevServer> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const environment = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'cached-download' },
      ip,
      port: options.port,
      ui: true,
      uiPort: options.uiPort,
      dbFilename: options.databaseFile,
      namespace: options.namespace ?? 'default',
      extraArgs: tuningArguments(),
    },
  });
  return {
    address: `${ip}:${options.port}`,
    uiUrl,
    source: 'sdk-download',
    stop: () => environment.teardown(),
  };
}

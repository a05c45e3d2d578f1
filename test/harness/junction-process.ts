import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ENTRY = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

function assertBuilt(): void {
  if (!existsSync(ENTRY))
    throw new Error(`${ENTRY} is missing: run \`npm run build\` first (npm test does)`);
}

function processEnv(env: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', METRICS_PORT: '0', ...env };
}

export interface JunctionProcess {
  readonly child: ChildProcess;
  output(): string;
  /** A line of the start-up banner, e.g. `banner('API')`. */
  banner(label: string): string | undefined;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A real `junction <mode>` process from the build, as operators run it; resolves once it started. */
export async function startJunctionProcess(
  mode: 'api' | 'worker' | 'local',
  env: Readonly<Record<string, string>>,
): Promise<JunctionProcess> {
  assertBuilt();
  const child = spawn(process.execPath, [ENTRY, mode], {
    env: processEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes(`Junction ${mode} started`) && output.includes('Metrics:')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) =>
      reject(new Error(`junction ${mode} exited with ${code} during start-up:\n${output}`)),
    );
  });
  return {
    child,
    output: () => output,
    banner: (label) => new RegExp(`^\\s+${label}:\\s+(.+)$`, 'm').exec(output)?.[1]?.trim(),
    stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs an operator command to completion. */
export function runJunctionCommand(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): { status: number | null; output: string } {
  assertBuilt();
  const result = spawnSync(process.execPath, [ENTRY, ...args], {
    env: processEnv(env),
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processCpuMs, type Row, type Summary } from './common';

/**
 * wrk (Debian's package), the load generator of the proxy facts in ARCHITECTURE.md: written in C,
 * it spends a tenth of the CPU per request of a Node client, which on a 2-core machine is CPU
 * the service under test gets back. Requests come from a Lua script; the figures from its `done`.
 */
export interface WrkRun {
  /** The path of the wrk binary. */
  readonly wrk: string;
  readonly baseUrl: string;
  readonly connections: number;
  readonly seconds: number;
  /** Lua defining `request()`, written to `scriptFile`; it may read `env` with `os.getenv`. */
  readonly requestLua: string;
  readonly scriptFile: string;
  readonly env?: Record<string, string>;
  readonly label: string;
  readonly servicePid?: number;
}

export interface WrkResult {
  readonly row: Row;
  /** Responses with a status of 400 or more, and socket errors (connect, read, write, timeout). */
  readonly failedStatus: number;
  readonly socketErrors: number;
  /** CPU of wrk itself per request, ms. */
  readonly clientCpuMs: number;
}

const DONE_LUA = `
done = function(summary, latency, requests)
  io.write(string.format(
    "\\nWRK_RESULT {\\"requests\\":%d,\\"duration_us\\":%d,\\"status\\":%d,\\"connect\\":%d,\\"read\\":%d,\\"write\\":%d,\\"timeout\\":%d,\\"min\\":%d,\\"p50\\":%d,\\"p90\\":%d,\\"p99\\":%d,\\"max\\":%d,\\"mean\\":%f}\\n",
    summary.requests, summary.duration, summary.errors.status, summary.errors.connect,
    summary.errors.read, summary.errors.write, summary.errors.timeout,
    latency.min, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, latency.mean))
end
`;

interface DoneLine {
  requests: number;
  duration_us: number;
  status: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Children's CPU (utime + stime of waited-for children) of this process, ms. */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // cutime and cstime are fields 16 and 17 of stat, indexes 13 and 14 after the command.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

/** One wrk run (one thread, `connections` keep-alive connections, `seconds`); latencies in ms. */
export async function runWrk(run: WrkRun): Promise<WrkResult> {
  writeFileSync(run.scriptFile, `${run.requestLua}\n${DONE_LUA}`);
  const cpuBefore = processCpuMs(run.servicePid);
  const childrenBefore = childrenCpuMs();
  const child = spawn(
    run.wrk,
    [
      '-t1',
      `-c${run.connections}`,
      `-d${run.seconds}s`,
      '--timeout',
      '10s',
      '-s',
      run.scriptFile,
      run.baseUrl,
    ],
    { env: { ...process.env, ...run.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const cpuAfter = processCpuMs(run.servicePid);
  const clientCpu = childrenCpuMs() - childrenBefore;
  const line = /WRK_RESULT (\{.*\})/.exec(output)?.[1];
  if (code !== 0 || !line) throw new Error(`wrk exited with ${code}: ${output.slice(-2000)}`);
  const done = JSON.parse(line) as DoneLine;
  const ms = (micros: number): number => micros / 1000;
  const summary: Summary = {
    count: done.requests,
    min: ms(done.min),
    median: ms(done.p50),
    p90: ms(done.p90),
    p99: ms(done.p99),
    max: ms(done.max),
    mean: ms(done.mean),
  };
  return {
    row: {
      label: run.label,
      summary,
      perSecond: (done.requests * 1_000_000) / done.duration_us,
      serviceCpuMs:
        cpuBefore !== undefined && cpuAfter !== undefined && done.requests > 0
          ? (cpuAfter - cpuBefore) / done.requests
          : undefined,
    },
    failedStatus: done.status,
    socketErrors: done.connect + done.read + done.write + done.timeout,
    clientCpuMs: done.requests > 0 ? clientCpu / done.requests : Number.NaN,
  };
}

/** `runWrk` with the script file in `workDir`. */
export const wrkScriptFile = (workDir: string, name: string): string =>
  join(workDir, `${name}.lua`);

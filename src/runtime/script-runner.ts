import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type {
  HostCalls,
  HostMessage,
  ScriptErrorShape,
  ScriptInfo,
  ScriptKind,
  ScriptLogEntry,
  ThreadMessage,
} from './script-protocol';

/** The thread entry, compiled; from the TypeScript sources (tests) the build's copy is used. */
const THREAD_FILE = __filename.endsWith('.ts')
  ? join(__dirname, '..', '..', 'dist', 'src', 'runtime', 'script-thread.js')
  : join(__dirname, 'script-thread.js');

export type ScriptFailureReason = 'error' | 'timeout' | 'memory' | 'load' | 'cancelled';

/** A run that failed because of the script (not the worker): never retried as-is. */
export class ScriptFailure extends Error {
  constructor(
    readonly reason: ScriptFailureReason,
    message: string,
    readonly scriptError?: ScriptErrorShape,
  ) {
    super(message);
    this.name = 'ScriptFailure';
  }
}

/** What the host side provides to a script: its side effects. */
export type ScriptHost = Partial<HostCalls> &
  Pick<HostCalls, 'proxy' | 'getConnection' | 'getMetadata' | 'getEnvironmentVariables'> & {
    log(entry: ScriptLogEntry): void;
    /** Called on every host call: activity heartbeats ride on it. */
    activity?(): void;
  };

export interface RunScriptOptions {
  readonly bundle: string;
  readonly kind: ScriptKind;
  readonly info: ScriptInfo;
  readonly input?: unknown;
  readonly timeoutMs: number;
  /** The limit named in the timeout message when it is not `timeoutMs` (time left of a longer limit). */
  readonly limitMs?: number;
  readonly memoryLimitMb: number;
  readonly host: ScriptHost;
  readonly signal?: AbortSignal;
}

function hostError(error: unknown): { message: string; code?: string; response?: unknown } {
  const shape = error as { message?: unknown; code?: unknown; response?: unknown };
  return {
    message: typeof shape?.message === 'string' ? shape.message : String(error),
    ...(typeof shape?.code === 'string' ? { code: shape.code } : {}),
    ...(shape?.response !== undefined ? { response: shape.response } : {}),
  };
}

/** Answers a script's call with the host's method (a missing method is an error to the script). */
export function serveCall(
  host: ScriptHost,
  message: Extract<ThreadMessage, { type: 'call' }>,
  reply: (message: HostMessage) => void,
): void {
  host.activity?.();
  const method = host[message.method] as ((...args: unknown[]) => Promise<unknown>) | undefined;
  if (!method) {
    reply({
      type: 'reply',
      id: message.id,
      ok: false,
      error: { message: `${message.method} is not available to this script` },
    });
    return;
  }
  method.apply(host, message.args).then(
    (value) => reply({ type: 'reply', id: message.id, ok: true, value }),
    (error: unknown) =>
      reply({ type: 'reply', id: message.id, ok: false, error: hostError(error) }),
  );
}

export { THREAD_FILE };

/**
 * Runs one script in its own thread (own heap with a size limit, own V8 context) and resolves
 * with its output. A throw, a timeout, running out of memory or a cancellation rejects with a
 * ScriptFailure; the calling process is never affected.
 */
export function runScript(options: RunScriptOptions): Promise<unknown> {
  if (!existsSync(THREAD_FILE)) {
    return Promise.reject(
      new Error(`The script runtime is not built (${THREAD_FILE}); run npm run build`),
    );
  }
  return new Promise((resolve, reject) => {
    const worker = new Worker(THREAD_FILE, {
      workerData: {
        bundle: options.bundle,
        kind: options.kind,
        info: options.info,
        input: options.input,
      },
      resourceLimits: {
        maxOldGenerationSizeMb: options.memoryLimitMb,
        maxYoungGenerationSizeMb: Math.min(64, Math.max(8, options.memoryLimitMb / 8)),
      },
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      outcome();
      void worker.terminate();
    };
    const timer = setTimeout(() => {
      finish(() =>
        reject(
          new ScriptFailure(
            'timeout',
            `${options.info.name} ran longer than its limit of ${options.limitMs ?? options.timeoutMs} ms and was stopped`,
          ),
        ),
      );
    }, options.timeoutMs);
    const onAbort = () =>
      finish(() => reject(new ScriptFailure('cancelled', `${options.info.name} was cancelled`)));
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const reply = (message: HostMessage) => {
      if (!settled) worker.postMessage(message);
    };
    worker.on('message', (message: ThreadMessage) => {
      switch (message.type) {
        case 'log':
          options.host.log(message.entry);
          return;
        case 'done':
          finish(() => resolve(message.output));
          return;
        case 'failed': {
          const reason = message.error.name === 'ScriptLoadError' ? 'load' : 'error';
          finish(() => reject(new ScriptFailure(reason, message.error.message, message.error)));
          return;
        }
        case 'call':
          serveCall(options.host, message, reply);
      }
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        finish(() =>
          reject(
            new ScriptFailure(
              'memory',
              `${options.info.name} used more than its memory limit of ${options.memoryLimitMb} MB and was stopped`,
            ),
          ),
        );
        return;
      }
      finish(() =>
        reject(
          new ScriptFailure('error', error.message, { name: error.name, message: error.message }),
        ),
      );
    });
    worker.on('exit', (code) => {
      finish(() =>
        reject(
          new ScriptFailure(
            'error',
            `${options.info.name} stopped unexpectedly (exit code ${code})`,
          ),
        ),
      );
    });
  });
}

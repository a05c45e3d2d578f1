import { Worker } from 'node:worker_threads';
import type { HostMessage, ThreadMessage } from './script-protocol';
import { type RunScriptOptions, ScriptFailure, serveCall, THREAD_FILE } from './script-runner';

interface ActiveRun {
  readonly seq: number;
  readonly options: RunScriptOptions;
  readonly resolve: (output: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
  readonly onAbort: () => void;
}

interface PooledThread {
  readonly worker: Worker;
  /** Bundles this thread has evaluated (it is sent each bundle once). */
  readonly keys: Set<string>;
  current: ActiveRun | undefined;
  dead: boolean;
  /** When it last became idle (ms since the epoch). */
  idleSince: number;
}

export interface ScriptPoolOptions {
  /** Idle threads beyond `keepIdle` are stopped after this long (default: never). */
  readonly idleMs?: number;
  readonly keepIdle?: number;
  /**
   * A thread that has been sent more bundles than this is replaced after its run, so bundles of
   * versions long redeployed do not pile up in its memory.
   */
  readonly maxBundles?: number;
}

const DEFAULT_MAX_BUNDLES = 32;

/**
 * Threads kept warm for scripts: a run costs a message instead of a thread start (tens of ms
 * here), and each thread is sent a bundle once (see script-thread for what it keeps of it). One
 * run at a time per thread; a run that times out, is cancelled or exhausts the heap takes its
 * thread down with it and a fresh one replaces it.
 */
export class ScriptPool {
  private readonly threads = new Set<PooledThread>();
  private readonly idle: PooledThread[] = [];
  private readonly waiting: ((thread: PooledThread) => void)[] = [];
  private seq = 0;
  private closed = false;

  private readonly reaper: NodeJS.Timeout | undefined;

  constructor(
    private readonly size: number,
    private readonly memoryLimitMb: number,
    private readonly options: ScriptPoolOptions = {},
  ) {
    const idleMs = options.idleMs;
    if (idleMs !== undefined) {
      this.reaper = setInterval(() => this.reap(idleMs), Math.max(1_000, idleMs / 4));
      this.reaper.unref();
    }
  }

  /** Threads running or idle, for tests and metrics. */
  get threadCount(): number {
    return this.threads.size;
  }

  /** Starts the threads now rather than on the first runs. */
  warm(): void {
    while (!this.closed && this.threads.size < this.size) this.idle.push(this.spawn());
  }

  async run(options: RunScriptOptions & { readonly key: string }): Promise<unknown> {
    const thread = await this.acquire();
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      const onAbort = () =>
        this.fail(thread, new ScriptFailure('cancelled', `${options.info.name} was cancelled`));
      const timer = setTimeout(() => {
        this.fail(
          thread,
          new ScriptFailure(
            'timeout',
            `${options.info.name} ran longer than its limit of ${options.limitMs ?? options.timeoutMs} ms and was stopped`,
          ),
        );
      }, options.timeoutMs);
      thread.current = { seq, options, resolve, reject, timer, onAbort };
      if (options.signal?.aborted) {
        onAbort();
        return;
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const known = thread.keys.has(options.key);
      thread.keys.add(options.key);
      thread.worker.postMessage({
        type: 'run',
        key: options.key,
        seq,
        data: {
          bundle: known ? '' : options.bundle,
          kind: options.kind,
          info: options.info,
          input: options.input,
        },
      });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.reaper);
    for (const waiter of this.waiting.splice(0)) void waiter;
    await Promise.all([...this.threads].map((thread) => thread.worker.terminate()));
  }

  private acquire(): Promise<PooledThread> {
    if (this.closed) return Promise.reject(new Error('The script pool is closed'));
    const thread = this.idle.pop();
    if (thread) return Promise.resolve(thread);
    if (this.threads.size < this.size) return Promise.resolve(this.spawn());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(thread: PooledThread): void {
    if (thread.dead) return;
    if (thread.keys.size > (this.options.maxBundles ?? DEFAULT_MAX_BUNDLES)) {
      this.retire(thread);
      this.spawnForWaiter();
      return;
    }
    const next = this.waiting.shift();
    if (next) {
      next(thread);
    } else {
      thread.idleSince = Date.now();
      this.idle.push(thread);
    }
  }

  /** Stops threads idle longer than `idleMs`, keeping `keepIdle` of them. */
  private reap(idleMs: number): void {
    const keep = this.options.keepIdle ?? 0;
    const cutoff = Date.now() - idleMs;
    // `idle` is a stack: the longest idle come first.
    while (this.idle.length > keep && (this.idle[0]?.idleSince ?? Infinity) < cutoff) {
      const thread = this.idle.shift();
      if (thread) this.retire(thread);
    }
  }

  private retire(thread: PooledThread): void {
    thread.dead = true;
    this.threads.delete(thread);
    const index = this.idle.indexOf(thread);
    if (index >= 0) this.idle.splice(index, 1);
    void thread.worker.terminate();
  }

  private spawn(): PooledThread {
    const worker = new Worker(THREAD_FILE, {
      workerData: { pooled: true },
      resourceLimits: {
        maxOldGenerationSizeMb: this.memoryLimitMb,
        maxYoungGenerationSizeMb: Math.min(64, Math.max(8, this.memoryLimitMb / 8)),
      },
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    worker.unref();
    const thread: PooledThread = {
      worker,
      keys: new Set(),
      current: undefined,
      dead: false,
      idleSince: Date.now(),
    };
    this.threads.add(thread);
    worker.on('message', (message: ThreadMessage) => this.onMessage(thread, message));
    worker.on('error', (error: Error & { code?: string }) => {
      const name = thread.current?.options.info.name ?? 'the script';
      this.fail(
        thread,
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new ScriptFailure(
              'memory',
              `${name} used more than its memory limit of ${this.memoryLimitMb} MB and was stopped`,
            )
          : new ScriptFailure('error', error.message, { name: error.name, message: error.message }),
      );
    });
    worker.on('exit', (code) => {
      this.fail(
        thread,
        new ScriptFailure('error', `the script's thread stopped (exit code ${code})`),
      );
    });
    return thread;
  }

  private onMessage(thread: PooledThread, message: ThreadMessage): void {
    const run = thread.current;
    if (!run) return;
    switch (message.type) {
      case 'log':
        run.options.host.log(message.entry);
        return;
      case 'done':
        this.settle(thread, () => run.resolve(message.output));
        this.release(thread);
        return;
      case 'failed': {
        const reason = message.error.name === 'ScriptLoadError' ? 'load' : 'error';
        this.settle(thread, () =>
          run.reject(new ScriptFailure(reason, message.error.message, message.error)),
        );
        this.release(thread);
        return;
      }
      case 'call': {
        const reply = (answer: HostMessage) => {
          if (thread.current?.seq === message.run && !thread.dead)
            thread.worker.postMessage(answer);
        };
        if (message.run !== run.seq) {
          reply({
            type: 'reply',
            id: message.id,
            ok: false,
            error: { message: 'the run that made this call has ended' },
          });
          return;
        }
        serveCall(run.options.host, message, reply);
      }
    }
  }

  private settle(thread: PooledThread, outcome: () => void): void {
    const run = thread.current;
    if (!run) return;
    thread.current = undefined;
    clearTimeout(run.timer);
    run.options.signal?.removeEventListener('abort', run.onAbort);
    outcome();
  }

  /** Ends the current run with an error and replaces the thread (its state is suspect). */
  private fail(thread: PooledThread, error: ScriptFailure): void {
    const run = thread.current;
    this.settle(thread, () => run?.reject(error));
    if (thread.dead) return;
    this.retire(thread);
    this.spawnForWaiter();
  }

  /** A thread went away: a run waiting for one gets a fresh thread. */
  private spawnForWaiter(): void {
    const next = this.closed ? undefined : this.waiting.shift();
    next?.(this.spawn());
  }
}

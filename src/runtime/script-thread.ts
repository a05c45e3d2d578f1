/**
 * Entry of the thread that hosts one script run. The script runs in its own V8 context inside
 * this thread; every side effect (HTTP, records, checkpoints) is a call to the host thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { PaginateConfig, ProxyConfig } from '../scripts/sdk';
import { paginate } from './paginate';
import {
  type ParsingSchema,
  preparePartialRecords,
  prepareRecords,
  recordIds,
} from './record-preparation';
import type { Script } from 'node:vm';
import { compileBundle, evaluateBundle, runCompiled } from './sandbox';
import type {
  HostCalls,
  HostMessage,
  HostMethod,
  LogLevel,
  ScriptErrorShape,
  ScriptProxyResponse,
  ScriptThreadData,
  ThreadMessage,
} from './script-protocol';

/** Records per message to the host: bounded messages, several statements per big batch. */
const RECORDS_PER_CALL = 5_000;

const port = parentPort;
if (!port) throw new Error('script-thread must run as a worker thread');
/** One run per thread, or (pooled) one run at a time, each announced by a `run` message. */
const startup = workerData as ScriptThreadData | { readonly pooled: true };
let data: ScriptThreadData = 'pooled' in startup ? (undefined as never) : startup;
/**
 * Pooled threads keep, per bundle: for actions, the definition itself (its context serves every
 * run: an action's round trip is milliseconds); for syncs, the compiled code only, so each run
 * starts in a fresh context (no module state carried from one connection's run to another's)
 * without compiling the bundle again.
 */
const definitions = new Map<string, LoadedDefinition>();
const compiled = new Map<string, Script>();

const pending = new Map<
  number,
  { resolve: (value: unknown) => void; reject: (error: Error) => void }
>();
let nextId = 1;

function post(message: ThreadMessage): void {
  port?.postMessage(message);
}

/** The run whose context makes a call: a timer left behind by an earlier run cannot act for a later one. */
let runSeq = 0;

function caller(seq: number) {
  return <M extends HostMethod>(
    method: M,
    ...args: Parameters<HostCalls[M]>
  ): ReturnType<HostCalls[M]> => {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      post({ type: 'call', id, run: seq, method, args });
    }) as ReturnType<HostCalls[M]>;
  };
}

port.on('message', (message: HostMessage | RunMessage) => {
  if (message.type === 'run') {
    data = message.data;
    runSeq = message.seq;
    void runOnce(message.key);
    return;
  }
  const waiter = pending.get(message.id);
  if (!waiter) return;
  pending.delete(message.id);
  if (message.ok) {
    waiter.resolve(message.value);
  } else {
    const error = new Error(message.error.message) as Error & { code?: string; response?: unknown };
    if (message.error.code) error.code = message.error.code;
    if (message.error.response) error.response = message.error.response;
    waiter.reject(error);
  }
});

function log(level: LogLevel, message: unknown, fields?: Record<string, unknown>): void {
  post({
    type: 'log',
    entry: {
      level,
      message: typeof message === 'string' ? message : JSON.stringify(message),
      ...(fields && typeof fields === 'object' ? { fields: { ...fields } } : {}),
      at: new Date().toISOString(),
    },
  });
}

interface RunMessage {
  readonly type: 'run';
  /** Identifies the bundle (script and version); its definition is evaluated once per thread. */
  readonly key: string;
  readonly seq: number;
  readonly data: ScriptThreadData;
}

interface LoadedDefinition {
  kind?: unknown;
  name?: unknown;
  models?: Record<string, ParsingSchema>;
  input?: ParsingSchema;
  output?: ParsingSchema;
  exec?: (...args: unknown[]) => Promise<unknown>;
}

function modelSchema(
  definition: LoadedDefinition,
  operation: string,
  model: unknown,
): ParsingSchema {
  const models = definition.models ?? {};
  const schema = typeof model === 'string' ? models[model] : undefined;
  if (!schema) {
    throw new Error(
      `${operation}: model ${JSON.stringify(model)} is not declared by this sync (declared: ${Object.keys(models).join(', ') || 'none'})`,
    );
  }
  return schema;
}

async function inChunks<T>(items: T[], send: (chunk: T[]) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += RECORDS_PER_CALL) {
    await send(items.slice(start, start + RECORDS_PER_CALL));
  }
}

function scriptContext(definition: LoadedDefinition) {
  const { info } = data;
  const call = caller(runSeq);
  const proxy = (config: ProxyConfig): Promise<ScriptProxyResponse> => {
    if (!config || typeof config.endpoint !== 'string') {
      return Promise.reject(new Error('proxy: give an object with an "endpoint" string'));
    }
    return call('proxy', {
      method: (config.method ?? 'GET').toUpperCase(),
      endpoint: config.endpoint,
      headers: config.headers,
      params: config.params,
      data: config.data,
      retries: config.retries,
      retryOn: config.retryOn,
      baseUrlOverride: config.baseUrlOverride,
    });
  };
  const verb = (method: ProxyConfig['method']) => (config: Omit<ProxyConfig, 'method'>) =>
    proxy({ ...config, method });
  const base = {
    connectionId: info.connectionId,
    providerConfigKey: info.providerConfigKey,
    environment: info.environment,
    dryRun: info.dryRun,
    proxy,
    get: verb('GET'),
    post: verb('POST'),
    patch: verb('PATCH'),
    delete: verb('DELETE'),
    paginate: (config: PaginateConfig) => paginate(proxy, config),
    getConnection: () => call('getConnection'),
    getMetadata: () => call('getMetadata'),
    getEnvironmentVariables: () => call('getEnvironmentVariables'),
    log: (message: unknown, fields?: Record<string, unknown>) => log('info', message, fields),
    warn: (message: unknown, fields?: Record<string, unknown>) => log('warn', message, fields),
  };
  if (data.kind !== 'sync') return base;
  return {
    ...base,
    lastSyncDate: info.lastSyncDate ? new Date(info.lastSyncDate) : null,
    batchSave: async (records: unknown[], model: string) => {
      const prepared = prepareRecords(model, modelSchema(definition, 'batchSave', model), records);
      await inChunks(prepared, (chunk) => call('batchSave', model, chunk));
    },
    batchUpdate: async (records: unknown[], model: string) => {
      const prepared = preparePartialRecords(
        model,
        modelSchema(definition, 'batchUpdate', model),
        records,
      );
      await inChunks(prepared, (chunk) => call('batchUpdate', model, chunk));
    },
    batchDelete: async (records: unknown[], model: string) => {
      modelSchema(definition, 'batchDelete', model);
      await inChunks(recordIds(model, records), (chunk) => call('batchDelete', model, chunk));
    },
    getCheckpoint: () => call('getCheckpoint'),
    saveCheckpoint: (value: unknown) => call('saveCheckpoint', value),
  };
}

function describe(error: unknown): ScriptErrorShape {
  if (error !== null && typeof error === 'object') {
    const shape = error as {
      name?: unknown;
      message?: unknown;
      stack?: unknown;
      isActionError?: unknown;
      payload?: unknown;
      status?: unknown;
    };
    const message =
      typeof shape.message === 'string'
        ? shape.message
        : 'The script threw an object without a message';
    return {
      name: typeof shape.name === 'string' ? shape.name : 'Error',
      message,
      ...(typeof shape.stack === 'string' ? { stack: shape.stack } : {}),
      ...(shape.isActionError === true
        ? {
            actionError: {
              payload: toPlain(shape.payload),
              status: typeof shape.status === 'number' ? shape.status : 400,
            },
          }
        : {}),
    };
  }
  return { name: 'Error', message: `The script threw ${JSON.stringify(error) ?? String(error)}` };
}

function toPlain(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return '(a value that is not JSON)';
  }
}

async function runOnce(key?: string): Promise<void> {
  let definition: LoadedDefinition;
  try {
    const filename = `${data.info.name}.js`;
    const print = (text: string) => log('info', text);
    if (key === undefined) {
      definition = evaluateBundle(data.bundle, filename, print) as LoadedDefinition;
    } else if (data.kind === 'sync') {
      let script = compiled.get(key);
      if (!script) {
        script = compileBundle(data.bundle, filename);
        compiled.set(key, script);
      }
      definition = runCompiled(script, filename, print) as LoadedDefinition;
    } else {
      const known = definitions.get(key);
      definition = known ?? (evaluateBundle(data.bundle, filename, print) as LoadedDefinition);
      if (!known) definitions.set(key, definition);
    }
  } catch (error) {
    post({ type: 'failed', error: { ...describe(error), name: 'ScriptLoadError' } });
    return;
  }
  if (!definition || typeof definition.exec !== 'function' || definition.kind !== data.kind) {
    post({
      type: 'failed',
      error: {
        name: 'ScriptLoadError',
        message: `The bundle of ${data.info.name} does not default-export a ${data.kind} made by create${data.kind === 'sync' ? 'Sync' : 'Action'}`,
      },
    });
    return;
  }
  try {
    const context = scriptContext(definition);
    let output: unknown;
    if (data.kind === 'action') {
      const input = definition.input ? definition.input.safeParse(data.input) : undefined;
      if (input && !input.success) {
        const issues = (input.error?.issues ?? []).map((issue) => ({
          path: ['input', ...issue.path.map(String)].join('.'),
          message: issue.message,
        }));
        post({
          type: 'failed',
          error: {
            name: 'InputValidationError',
            message: `Invalid input: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
            issues,
          },
        });
        return;
      }
      output = await definition.exec(context, input ? input.data : data.input);
    } else {
      await definition.exec(context);
    }
    post({ type: 'done', output: toPlain(output) });
  } catch (error) {
    post({ type: 'failed', error: describe(error) });
  }
}

if (!('pooled' in startup)) void runOnce();

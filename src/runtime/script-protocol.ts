/** Messages between the worker-side runner and the thread that hosts a script. */

/** A record ready for the store: external id, its JSON text and the hash of that text. */
export interface PreparedRecord {
  readonly id: string;
  readonly json: string;
  readonly hash: string;
}

export type ScriptKind = 'sync' | 'action';

export interface ScriptInfo {
  readonly name: string;
  readonly connectionId: string;
  readonly providerConfigKey: string;
  readonly environment: string;
  readonly dryRun: boolean;
  /** ISO timestamp of the start of the last successful run, or null. */
  readonly lastSyncDate: string | null;
  /** Full syncs with deletion tracking tell the store which records a run saw. */
  readonly trackSeen?: boolean;
}

/** What the thread starts with (`workerData`). */
export interface ScriptThreadData {
  readonly bundle: string;
  readonly kind: ScriptKind;
  readonly info: ScriptInfo;
  readonly input?: unknown;
}

export interface HostCalls {
  proxy(config: ScriptProxyRequest): Promise<ScriptProxyResponse>;
  getConnection(): Promise<unknown>;
  getMetadata(): Promise<unknown>;
  getEnvironmentVariables(): Promise<{ name: string; value: string }[]>;
  batchSave(model: string, records: PreparedRecord[]): Promise<void>;
  batchUpdate(model: string, records: { id: string; json: string }[]): Promise<void>;
  batchDelete(model: string, ids: string[]): Promise<void>;
  getCheckpoint(): Promise<unknown>;
  saveCheckpoint(value: unknown): Promise<void>;
}

export type HostMethod = keyof HostCalls;

export interface ScriptProxyRequest {
  readonly method: string;
  readonly endpoint: string;
  readonly headers?: Record<string, string>;
  readonly params?: Record<string, string | number | boolean> | string;
  readonly data?: unknown;
  readonly retries?: number;
  readonly retryOn?: readonly number[];
  readonly baseUrlOverride?: string;
}

export interface ScriptProxyResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly data: unknown;
  /** The URL that was requested, so pagination can follow links relative to it. */
  readonly url: string;
}

export type LogLevel = 'info' | 'warn' | 'error';

export interface ScriptLogEntry {
  readonly level: LogLevel;
  readonly message: string;
  readonly fields?: Record<string, unknown>;
  readonly at: string;
}

/** A script's failure as it crosses the thread boundary. */
export interface ScriptErrorShape {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  /** Set by ActionError. */
  readonly actionError?: { readonly payload: unknown; readonly status: number };
  /** Set when an action's input does not match its schema. */
  readonly issues?: readonly { readonly path: string; readonly message: string }[];
}

export type ThreadMessage =
  | {
      readonly type: 'call';
      readonly id: number;
      /** The run that made the call (pooled threads run one script after another). */
      readonly run: number;
      readonly method: HostMethod;
      readonly args: unknown[];
    }
  | { readonly type: 'log'; readonly entry: ScriptLogEntry }
  | { readonly type: 'done'; readonly output: unknown }
  | { readonly type: 'failed'; readonly error: ScriptErrorShape };

export type HostMessage =
  | { readonly type: 'reply'; readonly id: number; readonly ok: true; readonly value: unknown }
  | {
      readonly type: 'reply';
      readonly id: number;
      readonly ok: false;
      readonly error: {
        readonly message: string;
        readonly code?: string;
        readonly response?: unknown;
      };
    };

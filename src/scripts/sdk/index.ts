/**
 * The authoring API for sync and action scripts: `import { createSync, createAction, z } from
 * 'junction/scripts'`. Bundled into every script by the CLI, so it imports nothing but zod.
 */
import { z } from 'zod';

export { z };

/** A model's schema: a zod object whose output has a string or number `id`. */
export type ModelSchema = z.ZodType<{ id: string | number }>;
export type Models = Record<string, ModelSchema>;

export interface ProxyConfig {
  /** Path on the external API, appended to the provider's base URL. */
  readonly endpoint: string;
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  readonly headers?: Record<string, string>;
  readonly params?: Record<string, string | number | boolean> | string;
  /** JSON-serialisable body, or a string sent as is. */
  readonly data?: unknown;
  /** Retries on network errors, timeouts, 429 and 5xx (default 3 in scripts). */
  readonly retries?: number;
  /** Extra status codes to retry on. */
  readonly retryOn?: readonly number[];
  readonly baseUrlOverride?: string;
}

export interface ProxyResponse<T = unknown> {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  /** Parsed JSON when the response is JSON, else the body as text. */
  readonly data: T;
}

export type Pagination =
  | {
      readonly type: 'cursor';
      /** Dotted path of the next cursor in the response body, for example `meta.next_cursor`. */
      readonly cursorPathInResponse: string;
      /** Query parameter (or body field for POST) that carries the cursor. */
      readonly cursorNameInRequest: string;
      readonly responsePath?: string;
      readonly limit?: number;
      readonly limitNameInRequest?: string;
    }
  | {
      readonly type: 'link';
      /** Dotted path of the items in the body; the body itself when absent. */
      readonly responsePath?: string;
      /** Relation of the `Link` header to follow (default `next`). */
      readonly linkRel?: string;
      /** Or a dotted path in the body holding the next URL. */
      readonly linkPathInResponse?: string;
      readonly limit?: number;
      readonly limitNameInRequest?: string;
    }
  | {
      readonly type: 'offset';
      readonly offsetNameInRequest: string;
      readonly responsePath?: string;
      readonly limit: number;
      readonly limitNameInRequest: string;
      /** Offset of the first page (default 0). Set `offsetStep: 'page'` for page numbers. */
      readonly offsetStart?: number;
      readonly offsetStep?: 'items' | 'page';
    };

export interface PaginateConfig extends ProxyConfig {
  readonly paginate: Pagination;
  /**
   * Called after each page was handled by the loop body, with what requests the next page (a
   * URL for link pagination, the cursor or offset otherwise; null after the last page). Save it
   * as a checkpoint to resume there: pass a saved link back as `endpoint`.
   */
  readonly onPage?: (page: { readonly next: string | number | null }) => void | Promise<void>;
}

export interface ScriptConnection {
  readonly id: number;
  readonly connection_id: string;
  readonly provider_config_key: string;
  readonly provider: string;
  readonly connection_config: Record<string, unknown>;
  readonly metadata: Record<string, unknown> | null;
  readonly credentials: Record<string, unknown>;
}

/** What every script sees. */
export interface ScriptContext {
  readonly connectionId: string;
  readonly providerConfigKey: string;
  /** `dev` or `prod`. */
  readonly environment: string;
  /** True under `junction dryrun`: nothing is saved. */
  readonly dryRun: boolean;
  proxy<T = unknown>(config: ProxyConfig): Promise<ProxyResponse<T>>;
  get<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<ProxyResponse<T>>;
  post<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<ProxyResponse<T>>;
  patch<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<ProxyResponse<T>>;
  delete<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<ProxyResponse<T>>;
  /** Pages of items, requested one after the other. */
  paginate<T = unknown>(config: PaginateConfig): AsyncGenerator<T[], void, undefined>;
  getConnection(): Promise<ScriptConnection>;
  getMetadata<T = Record<string, unknown>>(): Promise<T>;
  getEnvironmentVariables(): Promise<{ name: string; value: string }[]>;
  log(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

type RecordOf<M extends Models, K extends keyof M> = z.input<M[K]>;

/** What a sync script sees: the script context plus record writes and checkpoints. */
export interface SyncContext<M extends Models = Models> extends ScriptContext {
  /** When the last successful run of this sync for this connection started; null on the first. */
  readonly lastSyncDate: Date | null;
  /** Adds or updates records (validated against the model's schema; each needs an `id`). */
  batchSave<K extends keyof M & string>(records: RecordOf<M, K>[], model: K): Promise<void>;
  /** Updates records that exist: fields given replace stored fields. */
  batchUpdate<K extends keyof M & string>(
    records: (Partial<RecordOf<M, K>> & { id: string | number })[],
    model: K,
  ): Promise<void>;
  /** Marks records deleted (only `id` is read). */
  batchDelete<K extends keyof M & string>(
    records: { id: string | number }[],
    model: K,
  ): Promise<void>;
  /** The checkpoint saved last (in this run or an earlier one); null when none. */
  getCheckpoint<T = unknown>(): Promise<T | null>;
  /** Saves a checkpoint durably: a run retried on another worker resumes from it. */
  saveCheckpoint(value: unknown): Promise<void>;
}

export type SyncType = 'incremental' | 'full';

export interface SyncDefinition<M extends Models = Models> {
  readonly kind: 'sync';
  readonly name: string;
  /** The integration ID (`provider_config_key`) the sync runs for. */
  readonly integration: string;
  readonly description?: string;
  /** Default interval between runs, for example `30m` or `1 hour`. */
  readonly frequency: string;
  /** Whether new connections start running it (default true). */
  readonly autoStart?: boolean;
  readonly type: SyncType;
  /** Full syncs only: records not saved during a successful run are marked deleted. */
  readonly trackDeletes?: boolean;
  readonly models: M;
  /** Longest run, for example `2h` (default 24 hours). */
  readonly timeout?: string;
  exec(context: SyncContext<M>): Promise<void>;
}

/** What an action script sees: the script context without record writes. */
export type ActionContext = ScriptContext;

export interface ActionDefinition<I = unknown, O = unknown> {
  readonly kind: 'action';
  readonly name: string;
  readonly integration: string;
  readonly description?: string;
  readonly input: z.ZodType<I>;
  readonly output?: z.ZodType<O>;
  /** Longest run, for example `30s` (default from configuration, 15 minutes). */
  readonly timeout?: string;
  /** Automatic retries on failure (default 0: actions are not retried). */
  readonly retries?: number;
  exec(context: ActionContext, input: I): Promise<O>;
}

export type ScriptDefinition = SyncDefinition<Models> | ActionDefinition<unknown, unknown>;

/** Declares a sync; `export default createSync({...})`. */
export function createSync<M extends Models>(
  definition: Omit<SyncDefinition<M>, 'kind'>,
): SyncDefinition<M> {
  return { kind: 'sync', ...definition };
}

/** Declares an action; `export default createAction({...})`. */
export function createAction<I, O>(
  definition: Omit<ActionDefinition<I, O>, 'kind'>,
): ActionDefinition<I, O> {
  return { kind: 'action', ...definition };
}

/**
 * Thrown by an action to fail with a payload the caller receives in the error envelope
 * (`action_failure`), with status 400 unless given.
 */
export class ActionError extends Error {
  readonly isActionError = true;
  constructor(
    readonly payload: unknown,
    readonly status = 400,
  ) {
    super(typeof payload === 'string' ? payload : 'Action failed');
    this.name = 'ActionError';
  }
}

import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { RecordsService } from '../records/records.service';
import { ScriptPool } from '../runtime/script-pool';
import { ScriptFailure } from '../runtime/script-runner';
import { ScriptServices } from '../runtime/script-services';
import type { DeployedScript, SyncDefinitionJson } from '../scripts/script.types';
import { ScriptsService } from '../scripts/scripts.service';
import {
  type ModelChanges,
  type RunConnection,
  type SyncRun,
  type SyncRunType,
  SyncRunsRepository,
} from './sync-runs.repository';

export interface BeginRunInput {
  readonly connectionRowId: number;
  readonly syncName: string;
  readonly workflowId: string;
  readonly temporalRunId: string;
}

export type BeginRunResult =
  | {
      readonly skipped: false;
      readonly runId: string;
      readonly type: SyncRunType;
      readonly timeoutMs: number;
      readonly heartbeatTimeoutMs: number;
      readonly maxAttempts: number;
    }
  | { readonly skipped: true; readonly reason: string };

export interface FinishRunInput {
  readonly runId: string;
  readonly outcome: 'SUCCESS' | 'ERROR' | 'CANCELLED';
  readonly error?: { readonly message: string; readonly reason?: string };
}

export interface FinishedRun {
  readonly runId: string;
  readonly status: SyncRun['status'];
  readonly type: SyncRunType;
  readonly results: ModelChanges;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly environmentId: number;
  readonly providerConfigKey: string;
  readonly connectionId: string;
  readonly syncName: string;
  /** The environment has a webhook URL: the workflow sends one webhook per changed model. */
  readonly webhooks: boolean;
}

export interface ActivityHooks {
  /** 1 for the first attempt; more when a lost worker's run is taken over. */
  readonly attempt: number;
  heartbeat(details?: unknown): void;
  readonly signal?: AbortSignal;
}

/** Bundles by (script, version): versions never change, so they are cached for good. */
const BUNDLE_CACHE_SIZE = 200;

/**
 * The worker side of a sync run: start bookkeeping, executing the script against the store,
 * and the outcome (deletion tracking, counts, last sync date). Activities translate Temporal to
 * these calls.
 */
/** How long a sync thread may stay idle before it is stopped (two are always kept). */
const SYNC_THREAD_IDLE_MS = 60_000;

@Injectable()
export class SyncRunnerService implements OnModuleDestroy {
  private readonly logger = new Logger('SyncRun');
  private readonly bundles = new Map<string, DeployedScript>();
  private pool: ScriptPool | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runs: SyncRunsRepository,
    private readonly scripts: ScriptsService,
    private readonly records: RecordsService,
    private readonly scriptServices: ScriptServices,
  ) {}

  async begin(input: BeginRunInput): Promise<BeginRunResult> {
    const connection = await this.runs.connection(input.connectionRowId);
    if (!connection) return { skipped: true, reason: 'the connection no longer exists' };
    const script = await this.scripts.currentSummary(
      connection.environmentId,
      connection.providerConfigKey,
      'sync',
      input.syncName,
    );
    if (!script) return { skipped: true, reason: `sync ${input.syncName} is not deployed` };
    const definition = script.definition as SyncDefinitionJson;
    const { run, created } = await this.runs.begin({
      connectionRowId: connection.connectionRowId,
      syncName: input.syncName,
      scriptId: script.scriptId,
      scriptVersion: script.version,
      workflowId: input.workflowId,
      temporalRunId: input.temporalRunId,
    });
    // A full sync reads everything again: a new run starts from the beginning, while a retried
    // attempt of the same run resumes from what the script saved.
    if (created && definition.type === 'full') {
      await this.runs.saveCheckpoint(connection.connectionRowId, input.syncName, null);
    }
    return {
      skipped: false,
      runId: run.id,
      type: run.type,
      timeoutMs: definition.timeout_ms ?? this.config.scripts.syncDefaultTimeoutMs,
      heartbeatTimeoutMs: this.config.scripts.syncHeartbeatTimeoutMs,
      maxAttempts: this.config.scripts.syncMaxAttempts,
    };
  }

  /** Runs the script; rejects with ScriptFailure when the script is at fault. */
  async execute(runId: string, hooks: ActivityHooks): Promise<void> {
    const { run, connection, script } = await this.load(runId);
    if (hooks.attempt > 1) await this.runs.noteAttempt(run.id, hooks.attempt);
    const definition = script.definition as SyncDefinitionJson;
    const trackSeen = definition.type === 'full' && definition.track_deletes;
    const lastSyncDate = await this.runs.lastSyncDate(connection.connectionRowId, run.syncName);
    const fields = {
      environment: connection.environmentName,
      integration: connection.providerConfigKey,
      connection: connection.connectionId,
      sync: run.syncName,
      run: run.id,
    };
    const limitMs = definition.timeout_ms ?? this.config.scripts.syncDefaultTimeoutMs;
    const store = { connectionId: connection.connectionRowId, runId: run.id };
    const beat = setInterval(
      () => hooks.heartbeat(),
      Math.max(500, Math.floor(this.config.scripts.syncHeartbeatTimeoutMs / 3)),
    );
    try {
      await this.threads().run({
        key: `${script.scriptId}:${script.version}`,
        bundle: script.bundle,
        kind: 'sync',
        info: {
          name: run.syncName,
          connectionId: connection.connectionId,
          providerConfigKey: connection.providerConfigKey,
          environment: connection.environmentName,
          dryRun: false,
          lastSyncDate: lastSyncDate?.toISOString() ?? null,
          trackSeen,
        },
        timeoutMs: Math.max(1_000, limitMs - (Date.now() - run.startedAt.getTime())),
        limitMs,
        memoryLimitMb: this.config.scripts.memoryLimitMb,
        signal: hooks.signal,
        host: {
          ...this.scriptServices.host({
            environmentId: connection.environmentId,
            providerConfigKey: connection.providerConfigKey,
            connectionId: connection.connectionId,
          }),
          batchSave: async (model, records) => {
            await this.records.saveBatch({ ...store, model, records, trackSeen });
          },
          batchUpdate: async (model, records) => {
            await this.records.updateBatch({ ...store, model, records });
          },
          batchDelete: async (model, ids) => {
            await this.records.deleteBatch({ ...store, model, ids });
          },
          getCheckpoint: () => this.runs.checkpoint(connection.connectionRowId, run.syncName),
          saveCheckpoint: async (value) => {
            await this.runs.saveCheckpoint(connection.connectionRowId, run.syncName, value);
            hooks.heartbeat({ checkpoint: true });
          },
          log: (entry) => {
            const line = { ...fields, script: entry.fields ?? {} };
            if (entry.level === 'info') this.logger.log(line, entry.message);
            else if (entry.level === 'warn') this.logger.warn(line, entry.message);
            else this.logger.error(line, entry.message);
          },
          activity: () => hooks.heartbeat(),
        },
      });
    } finally {
      clearInterval(beat);
    }
  }

  /** Records the outcome once; on success applies deletion tracking and the last sync date. */
  async finish(input: FinishRunInput): Promise<FinishedRun> {
    const run = await this.runs.find(input.runId);
    if (!run) {
      // The connection was deleted meanwhile (its runs with it): nothing left to record.
      return {
        runId: input.runId,
        status: 'CANCELLED',
        type: 'INCREMENTAL',
        results: {},
        startedAt: new Date().toISOString(),
        finishedAt: new Date().toISOString(),
        environmentId: 0,
        providerConfigKey: '',
        connectionId: '',
        syncName: '',
        webhooks: false,
      };
    }
    const connection = await this.runs.connection(run.connectionRowId);
    const models = await this.declaredModels(run);
    if (input.outcome === 'SUCCESS' && run.status === 'RUNNING' && connection) {
      const script = await this.script(run, connection).catch(() => undefined);
      const definition = script?.definition as SyncDefinitionJson | undefined;
      if (definition?.type === 'full' && definition.track_deletes) {
        for (const model of Object.keys(definition.models)) {
          await this.records.deleteUnseen({
            connectionId: run.connectionRowId,
            model,
            runId: run.id,
          });
        }
      }
    }
    const changes = await this.records.runChanges({
      connectionId: run.connectionRowId,
      runId: run.id,
    });
    const results: ModelChanges = {};
    for (const model of new Set([...models, ...Object.keys(changes)])) {
      results[model] = changes[model] ?? { added: 0, updated: 0, deleted: 0 };
    }
    const finished = await this.runs.finish(
      run.id,
      input.outcome,
      results,
      input.outcome === 'SUCCESS' ? null : (input.error ?? { message: 'cancelled' }),
    );
    if (finished.status === 'SUCCESS') {
      await this.runs.markSucceeded(run.connectionRowId, run.syncName, run.startedAt);
    }
    return {
      runId: finished.id,
      status: finished.status,
      type: finished.type,
      results: finished.results,
      startedAt: finished.startedAt.toISOString(),
      finishedAt: finished.finishedAt?.toISOString() ?? null,
      environmentId: connection?.environmentId ?? 0,
      providerConfigKey: connection?.providerConfigKey ?? '',
      connectionId: connection?.connectionId ?? '',
      syncName: run.syncName,
      webhooks:
        finished.status === 'SUCCESS' && connection !== null
          ? await this.runs.hasWebhookUrl(connection.environmentId)
          : false,
    };
  }

  private async declaredModels(run: SyncRun): Promise<string[]> {
    if (run.scriptId === null) return [];
    const script = this.bundles.get(`${run.scriptId}:${run.scriptVersion}`);
    if (script) return Object.keys((script.definition as SyncDefinitionJson).models);
    const loaded = await this.scripts.version(run.scriptId, run.scriptVersion);
    if (loaded) this.remember(loaded);
    return loaded ? Object.keys((loaded.definition as SyncDefinitionJson).models) : [];
  }

  /**
   * Warm threads, one per sync running at once at most: a run costs a message instead of a
   * thread start and a bundle compile, and still gets a fresh context. Threads idle for a minute
   * are stopped, so a burst does not keep its threads' memory.
   */
  private threads(): ScriptPool {
    this.pool ??= new ScriptPool(
      this.config.worker.maxConcurrentActivities,
      this.config.scripts.memoryLimitMb,
      { idleMs: SYNC_THREAD_IDLE_MS, keepIdle: 2 },
    );
    return this.pool;
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.close();
  }

  private async load(
    runId: string,
  ): Promise<{ run: SyncRun; connection: RunConnection; script: DeployedScript }> {
    const run = await this.runs.find(runId);
    const connection = run ? await this.runs.connection(run.connectionRowId) : null;
    if (!run || !connection) {
      throw new ScriptFailure('load', 'the connection was deleted during the run');
    }
    return { run, connection, script: await this.script(run, connection) };
  }

  private async script(run: SyncRun, connection: RunConnection): Promise<DeployedScript> {
    const key = `${run.scriptId}:${run.scriptVersion}`;
    const cached = this.bundles.get(key);
    if (cached) return cached;
    const script =
      run.scriptId === null ? null : await this.scripts.version(run.scriptId, run.scriptVersion);
    if (!script) {
      throw new ScriptFailure(
        'load',
        `version ${run.scriptVersion} of sync ${run.syncName} for ${connection.providerConfigKey} is no longer deployed`,
      );
    }
    this.remember(script);
    return script;
  }

  private remember(script: DeployedScript): void {
    const key = `${script.scriptId}:${script.version}`;
    this.bundles.delete(key);
    this.bundles.set(key, script);
    while (this.bundles.size > BUNDLE_CACHE_SIZE) {
      const oldest = this.bundles.keys().next().value;
      if (oldest === undefined) break;
      this.bundles.delete(oldest);
    }
  }
}

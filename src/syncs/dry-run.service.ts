import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { ConnectionNotFoundError } from '../connections/connections.service';
import type { AuthenticatedEnvironment } from '../auth/caller-environment.decorator';
import { RecordsService } from '../records/records.service';
import type { ScriptLogEntry } from '../runtime/script-protocol';
import { runScript, ScriptFailure } from '../runtime/script-runner';
import { ScriptServices } from '../runtime/script-services';
import { SyncRunsRepository } from './sync-runs.repository';

/** Records of one model a dry run returns (all are counted). */
const RECORDS_SHOWN_PER_MODEL = 1_000;
/** Dry runs answer an HTTP request: a shorter limit than real runs. */
const DRY_RUN_TIMEOUT_MS = 5 * 60_000;

export interface DryRunRequest {
  readonly kind: 'sync' | 'action';
  readonly name: string;
  readonly providerConfigKey: string;
  readonly connectionId: string;
  readonly bundle: string;
  readonly models: readonly string[];
  readonly input?: unknown;
  readonly checkpoint?: unknown;
  readonly lastSyncDate?: Date;
  readonly timeoutMs?: number;
}

export interface ModelResult {
  records: unknown[];
  added: number;
  updated: number;
  unchanged: number;
  deleted: number;
}

export class ScriptFailureError extends DomainError {
  constructor(failure: ScriptFailure, logs: readonly ScriptLogEntry[]) {
    super('script_failure', `The script failed: ${failure.message}`, undefined, {
      reason: failure.reason,
      ...(failure.scriptError?.stack ? { stack: failure.scriptError.stack } : {}),
      logs,
    });
  }
}

/**
 * Runs a script as the CLI's `dryrun` asks: against a real connection (real HTTP through the
 * proxy), with record writes classified against the store but never saved.
 */
@Injectable()
export class DryRunService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runs: SyncRunsRepository,
    private readonly records: RecordsService,
    private readonly scriptServices: ScriptServices,
  ) {}

  async run(environment: AuthenticatedEnvironment, request: DryRunRequest) {
    const [connection] =
      (await this.runs.connectionsOf(
        environment.id,
        request.providerConfigKey,
        request.connectionId,
      )) ?? [];
    if (!connection) {
      throw new ConnectionNotFoundError(request.providerConfigKey, [request.connectionId]);
    }
    const models = new Map<string, ModelResult>(
      request.models.map((model) => [
        model,
        { records: [], added: 0, updated: 0, unchanged: 0, deleted: 0 },
      ]),
    );
    const modelResult = (model: string): ModelResult => {
      let result = models.get(model);
      if (!result) {
        result = { records: [], added: 0, updated: 0, unchanged: 0, deleted: 0 };
        models.set(model, result);
      }
      return result;
    };
    const logs: ScriptLogEntry[] = [];
    let checkpoint = request.checkpoint ?? null;
    const started = Date.now();
    let output: unknown;
    try {
      output = await runScript({
        bundle: request.bundle,
        kind: request.kind,
        input: request.input,
        info: {
          name: request.name,
          connectionId: request.connectionId,
          providerConfigKey: request.providerConfigKey,
          environment: environment.name,
          dryRun: true,
          lastSyncDate: request.lastSyncDate?.toISOString() ?? null,
        },
        timeoutMs: Math.min(request.timeoutMs ?? DRY_RUN_TIMEOUT_MS, DRY_RUN_TIMEOUT_MS),
        memoryLimitMb: this.config.scripts.memoryLimitMb,
        host: {
          ...this.scriptServices.host({
            environmentId: environment.id,
            providerConfigKey: request.providerConfigKey,
            connectionId: request.connectionId,
          }),
          ...(request.kind === 'sync'
            ? {
                batchSave: async (
                  model: string,
                  records: { id: string; json: string; hash: string }[],
                ) => {
                  const result = modelResult(model);
                  const counts = await this.records.classify({
                    connectionId: connection.connectionRowId,
                    model,
                    records,
                  });
                  result.added += counts.added;
                  result.updated += counts.updated;
                  result.unchanged += counts.unchanged;
                  for (const record of records) {
                    if (result.records.length >= RECORDS_SHOWN_PER_MODEL) break;
                    result.records.push(JSON.parse(record.json));
                  }
                },
                batchUpdate: (model: string, records: { id: string }[]) => {
                  modelResult(model).updated += records.length;
                  return Promise.resolve();
                },
                batchDelete: (model: string, ids: string[]) => {
                  modelResult(model).deleted += ids.length;
                  return Promise.resolve();
                },
                getCheckpoint: () => Promise.resolve(checkpoint),
                saveCheckpoint: (value: unknown) => {
                  checkpoint = value ?? null;
                  return Promise.resolve();
                },
              }
            : {}),
          log: (entry) => {
            logs.push(entry);
          },
        },
      });
    } catch (error) {
      if (error instanceof ScriptFailure) throw new ScriptFailureError(error, logs);
      throw error;
    }
    const duration_ms = Date.now() - started;
    if (request.kind === 'action') return { output: output ?? null, logs, duration_ms };
    return { models: Object.fromEntries(models), checkpoint, logs, duration_ms };
  }
}

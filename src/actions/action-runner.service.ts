import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { ScriptPool } from '../runtime/script-pool';
import { ScriptFailure } from '../runtime/script-runner';
import { ScriptServices } from '../runtime/script-services';
import type { DeployedScript } from '../scripts/script.types';
import { ScriptsService } from '../scripts/scripts.service';
import { SyncRunsRepository } from '../syncs/sync-runs.repository';
import type { ActionOutcome, ActionRunInput } from './action-outcome';

/** Failures worth another attempt when the definition allows retries; others end the run. */
export class ActionScriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ActionScriptError';
  }
}

/**
 * The worker side of an action: the script in a warm thread of the pool, with the connection's
 * context (no record writes), answered as an ActionOutcome.
 */
@Injectable()
export class ActionRunnerService implements OnModuleDestroy {
  private readonly logger = new Logger('Action');
  private readonly bundles = new Map<string, DeployedScript>();
  private pool: ScriptPool | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runs: SyncRunsRepository,
    private readonly scripts: ScriptsService,
    private readonly scriptServices: ScriptServices,
  ) {}

  /** Starts the pool's threads (workers call it at start-up). */
  warm(): void {
    this.threads().warm();
  }

  async run(input: ActionRunInput, signal?: AbortSignal): Promise<ActionOutcome> {
    const connection = await this.runs.connection(input.connectionRowId);
    if (!connection) {
      return { ok: false, failure: 'script_error', message: 'the connection no longer exists' };
    }
    const script = await this.script(input.scriptId, input.version);
    if (!script) {
      return {
        ok: false,
        failure: 'script_error',
        message: `version ${input.version} of action ${input.actionName} is no longer deployed`,
      };
    }
    const fields = {
      environment: connection.environmentName,
      integration: connection.providerConfigKey,
      connection: connection.connectionId,
      action: input.actionName,
    };
    try {
      const output = await this.threads().run({
        key: `${script.scriptId}:${script.version}`,
        bundle: script.bundle,
        kind: 'action',
        input: input.input,
        info: {
          name: input.actionName,
          connectionId: connection.connectionId,
          providerConfigKey: connection.providerConfigKey,
          environment: connection.environmentName,
          dryRun: false,
          lastSyncDate: null,
        },
        timeoutMs: input.timeoutMs,
        memoryLimitMb: this.config.scripts.memoryLimitMb,
        signal,
        host: {
          ...this.scriptServices.host({
            environmentId: connection.environmentId,
            providerConfigKey: connection.providerConfigKey,
            connectionId: connection.connectionId,
          }),
          log: (entry) => {
            const line = { ...fields, script: entry.fields ?? {} };
            if (entry.level === 'info') this.logger.log(line, entry.message);
            else if (entry.level === 'warn') this.logger.warn(line, entry.message);
            else this.logger.error(line, entry.message);
          },
        },
      });
      return { ok: true, output: output ?? null };
    } catch (error) {
      if (!(error instanceof ScriptFailure)) throw error;
      const detail = error.scriptError;
      if (detail?.actionError) {
        return {
          ok: false,
          failure: 'action_error',
          payload: detail.actionError.payload,
          status: detail.actionError.status,
        };
      }
      if (detail?.issues) return { ok: false, failure: 'invalid_input', issues: detail.issues };
      if (error.reason === 'timeout')
        return { ok: false, failure: 'timeout', message: error.message };
      if (error.reason === 'cancelled') throw error;
      this.logger.warn({ ...fields, reason: error.reason }, `Action failed: ${error.message}`);
      throw new ActionScriptError(error.message);
    }
  }

  private threads(): ScriptPool {
    this.pool ??= new ScriptPool(
      this.config.scripts.actionThreads,
      this.config.scripts.memoryLimitMb,
    );
    return this.pool;
  }

  private async script(scriptId: number, version: number): Promise<DeployedScript | null> {
    const key = `${scriptId}:${version}`;
    const cached = this.bundles.get(key);
    if (cached) return cached;
    const script = await this.scripts.version(scriptId, version);
    if (script) {
      this.bundles.set(key, script);
      if (this.bundles.size > 200) {
        const oldest = this.bundles.keys().next().value;
        if (oldest !== undefined) this.bundles.delete(oldest);
      }
    }
    return script;
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.close();
  }
}

import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { ScriptFailure } from '../src/runtime/script-runner';
import type {
  BeginRunInput,
  BeginRunResult,
  FinishedRun,
  FinishRunInput,
  SyncRunnerService,
} from '../src/syncs/sync-runner.service';

export interface SyncActivityDependencies {
  readonly syncRunner: SyncRunnerService;
}

export function createSyncActivities({ syncRunner }: SyncActivityDependencies) {
  return {
    beginSyncRun(input: BeginRunInput): Promise<BeginRunResult> {
      return syncRunner.begin(input);
    },

    async executeSyncRun(input: { runId: string }): Promise<void> {
      const context = Context.current();
      try {
        await syncRunner.execute(input.runId, {
          attempt: context.info.attempt,
          heartbeat: (details) => context.heartbeat(details),
          signal: context.cancellationSignal,
        });
      } catch (error) {
        if (!(error instanceof ScriptFailure)) throw error;
        if (error.reason === 'cancelled') throw new CancelledFailure(error.message);
        throw ApplicationFailure.nonRetryable(error.message, `script_${error.reason}`, {
          stack: error.scriptError?.stack,
        });
      }
    },

    finishSyncRun(input: FinishRunInput): Promise<FinishedRun> {
      return syncRunner.finish(input);
    },
  };
}

import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { SCRIPT_FAILURE_TYPES } from './script-failures';
import { webhookDeliveryWorkflow } from './webhook-delivery.workflow';

export interface SyncRunInput {
  /** Row id of the connection (stable while the connection exists). */
  readonly connectionRowId: number;
  readonly syncName: string;
}

export interface SyncRunSummary {
  readonly status: 'SUCCESS' | 'ERROR' | 'CANCELLED' | 'SKIPPED';
  readonly runId?: string;
  readonly type?: 'INITIAL' | 'INCREMENTAL';
  readonly results?: Record<string, { added: number; updated: number; deleted: number }>;
  readonly reason?: string;
}

const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 30 },
});

function failureOf(error: unknown): { message: string; reason?: string } {
  let current: unknown = error;
  // ActivityFailure → its cause (ApplicationFailure, TimeoutFailure…) holds the useful message.
  while (current && typeof current === 'object' && 'cause' in current && current.cause) {
    current = current.cause;
  }
  const failure = current as { message?: unknown; type?: unknown } | undefined;
  return {
    message: typeof failure?.message === 'string' ? failure.message : 'the run failed',
    ...(typeof failure?.type === 'string' ? { reason: failure.type } : {}),
  };
}

/**
 * One run of one sync for one connection: bookkeeping, then the script in an activity that
 * heartbeats (a lost worker means a retry elsewhere, resuming from the last checkpoint), then
 * the outcome. A failed run is recorded, never deletes records, and fails the workflow so the
 * Temporal UI shows it.
 */
export async function syncRunWorkflow(input: SyncRunInput): Promise<SyncRunSummary> {
  const info = workflowInfo();
  const begun = await bookkeeping.beginSyncRun({
    connectionRowId: input.connectionRowId,
    syncName: input.syncName,
    workflowId: info.workflowId,
    temporalRunId: info.runId,
  });
  if (begun.skipped) return { status: 'SKIPPED', reason: begun.reason };

  const { executeSyncRun } = proxyActivities<Activities>({
    startToCloseTimeout: begun.timeoutMs,
    heartbeatTimeout: begun.heartbeatTimeoutMs,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: '1 second',
      maximumInterval: '1 minute',
      backoffCoefficient: 2,
      maximumAttempts: begun.maxAttempts,
      nonRetryableErrorTypes: SCRIPT_FAILURE_TYPES,
    },
  });
  try {
    await executeSyncRun({ runId: begun.runId });
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() =>
        bookkeeping.finishSyncRun({ runId: begun.runId, outcome: 'CANCELLED' }),
      );
      throw error;
    }
    const failure = failureOf(error);
    await bookkeeping.finishSyncRun({ runId: begun.runId, outcome: 'ERROR', error: failure });
    throw ApplicationFailure.nonRetryable(failure.message, failure.reason ?? 'sync_failed');
  }
  const finished = await bookkeeping.finishSyncRun({ runId: begun.runId, outcome: 'SUCCESS' });
  if (finished.webhooks) {
    // One webhook per changed model, each delivered (with its retries) by a child that outlives
    // this run. `modifiedAfter` is the run's start: every record it changed is at or after it.
    for (const [model, counts] of Object.entries(finished.results)) {
      if (counts.added + counts.updated + counts.deleted === 0) continue;
      await startChild(webhookDeliveryWorkflow, {
        workflowId: `${info.workflowId}:webhook:${model}`,
        parentClosePolicy: ParentClosePolicy.ABANDON,
        args: [
          {
            environmentId: finished.environmentId,
            payload: {
              type: 'sync',
              connectionId: finished.connectionId,
              providerConfigKey: finished.providerConfigKey,
              syncName: finished.syncName,
              model,
              responseResults: counts,
              syncType: finished.type,
              modifiedAfter: finished.startedAt,
            },
          },
        ],
      });
    }
  }
  return {
    status: 'SUCCESS',
    runId: finished.runId,
    type: finished.type,
    results: finished.results,
  };
}

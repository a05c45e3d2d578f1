import { Injectable } from '@nestjs/common';
import type { AuthenticatedEnvironment } from '../auth/caller-environment.decorator';
import { ConnectionNotFoundError } from '../connections/connections.service';
import { SchedulesService, type SyncSelection } from './schedules.service';
import { type SyncRun, SyncRunsRepository } from './sync-runs.repository';

export interface SyncRunView {
  readonly id: string;
  readonly sync: string;
  readonly type: SyncRun['type'];
  readonly status: SyncRun['status'];
  readonly started_at: string;
  readonly finished_at: string | null;
  readonly results: SyncRun['results'];
  readonly error: SyncRun['error'];
  readonly attempts: number;
  readonly script_version: number;
  readonly workflow_id: string;
}

/**
 * RUNNING: a run is in progress. PAUSED: not running, and its schedule is paused. SUCCESS or
 * ERROR: the outcome of the last run. STOPPED: the last run was cancelled, or the schedule is
 * missing (the reconciler restores it). PENDING: started but not run yet.
 */
export type SyncStatus = 'RUNNING' | 'PAUSED' | 'SUCCESS' | 'ERROR' | 'STOPPED' | 'PENDING';

/** Spec 2.6, plus the connection it belongs to. */
export interface SyncStatusItem {
  readonly id: string;
  readonly connection_id: string;
  readonly name: string;
  readonly status: SyncStatus;
  readonly type: SyncRun['type'] | null;
  readonly latestResult: Record<string, { added: number; updated: number; deleted: number }>;
  readonly finishedAt: string | null;
  readonly nextScheduledSyncAt: string | null;
  readonly frequency: string;
}

function runView(run: SyncRun): SyncRunView {
  return {
    id: run.id,
    sync: run.syncName,
    type: run.type,
    status: run.status,
    started_at: run.startedAt.toISOString(),
    finished_at: run.finishedAt?.toISOString() ?? null,
    results: run.results,
    error: run.error,
    attempts: run.attempts,
    script_version: run.scriptVersion,
    workflow_id: run.workflowId,
  };
}

/** The API side of syncs that reads: run history and status. */
@Injectable()
export class SyncsService {
  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly schedules: SchedulesService,
  ) {}

  async listRuns(
    environmentId: number,
    request: { providerConfigKey: string; connectionId: string; sync?: string; limit: number },
  ): Promise<SyncRunView[]> {
    const connections = await this.runs.connectionsOf(
      environmentId,
      request.providerConfigKey,
      request.connectionId,
    );
    const connection = connections?.[0];
    if (!connection) {
      throw new ConnectionNotFoundError(request.providerConfigKey, [request.connectionId]);
    }
    const runs = await this.runs.list(connection.connectionRowId, request.sync, request.limit);
    return runs.map(runView);
  }

  async status(
    environment: AuthenticatedEnvironment,
    selection: SyncSelection,
  ): Promise<SyncStatusItem[]> {
    const selected = await this.schedules.select(environment.id, selection);
    const items: SyncStatusItem[] = [];
    for (const schedule of selected) {
      const [latest] = await this.runs.list(schedule.connectionRowId, schedule.syncName, 1);
      const finished =
        latest && latest.status !== 'RUNNING'
          ? latest
          : await this.runs.latestFinished(schedule.connectionRowId, schedule.syncName);
      const state = await this.schedules.describe(schedule);
      let status: SyncStatus;
      if (latest?.status === 'RUNNING') status = 'RUNNING';
      else if (!state || latest?.status === 'CANCELLED')
        status = state?.paused ? 'PAUSED' : 'STOPPED';
      else if (state.paused) status = 'PAUSED';
      else if (!latest) status = 'PENDING';
      else status = latest.status === 'SUCCESS' ? 'SUCCESS' : 'ERROR';
      items.push({
        id: this.schedules.scheduleId(schedule),
        connection_id: schedule.connectionId,
        name: schedule.syncName,
        status,
        type: (latest ?? finished)?.type ?? null,
        latestResult: finished?.results ?? {},
        finishedAt: finished?.finishedAt?.toISOString() ?? null,
        nextScheduledSyncAt: state?.next?.toISOString() ?? null,
        frequency: this.schedules.frequencyOf(schedule),
      });
    }
    return items;
  }
}

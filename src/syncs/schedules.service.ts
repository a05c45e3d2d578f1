import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  type ScheduleDescription,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
} from '@temporalio/client';
import pMap from 'p-map';
import type { AuthenticatedEnvironment } from '../auth/caller-environment.decorator';
import { DomainError, InvalidRequestError } from '../common/errors/domain-error';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { ConnectionLifecycle } from '../connections/connection-lifecycle';
import { ConnectionNotFoundError } from '../connections/connections.service';
import { IntegrationNotFoundError } from '../integrations/integrations.service';
import { FREQUENCY_FORMS, parseFrequency } from '../scripts/frequency';
import { ScriptsService } from '../scripts/scripts.service';
import { TemporalClientService } from '../temporal/temporal-client.service';
import { SyncRunsRepository } from './sync-runs.repository';
import {
  type DesiredSchedule,
  type ScheduleScope,
  SyncSchedulesRepository,
} from './sync-schedules.repository';
import { runSearchAttributes, SyncNotFoundError } from './sync-identity';

/** Schedule calls in flight at once while reconciling. */
const RECONCILE_CONCURRENCY = 16;

export interface SyncSelection {
  readonly providerConfigKey: string;
  /** Empty: every sync of the integration. */
  readonly syncs: readonly string[];
  /** Absent: every connection of the integration. */
  readonly connectionId?: string;
}

export interface ReconcileReport {
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
}

/** A sync's frequency in the `{ frequency }` answer: the string as written. */
export interface FrequencyAnswer {
  readonly frequency: string;
}

/**
 * One Temporal Schedule per (connection, sync), derived from the database: interval from the
 * connection's override or the sync's default, paused per start/pause (or the sync's auto start),
 * overlap BUFFER_ONE (never two runs at once; a trigger during a run queues one follow-up).
 */
@Injectable()
export class SchedulesService implements OnModuleInit {
  private readonly logger = new Logger('Schedules');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly temporal: TemporalClientService,
    private readonly schedules: SyncSchedulesRepository,
    private readonly runs: SyncRunsRepository,
    private readonly scripts: ScriptsService,
    private readonly lifecycle: ConnectionLifecycle,
  ) {}

  onModuleInit(): void {
    this.lifecycle.register({
      connectionCreated: async ({ connectionRowId }) => {
        await this.reconcile({ connectionRowId });
      },
      connectionDeleting: (event) => this.removeConnection(event.connectionRowId),
    });
    this.scripts.onDeployed(async (environmentId) => {
      await this.reconcile({ environmentId }, true);
    });
  }

  /** `<task queue>:<environment>:<integration>:<connection>:<sync>`, readable in the Temporal UI. */
  scheduleId(schedule: {
    environmentName: string;
    providerConfigKey: string;
    connectionId: string;
    syncName: string;
  }): string {
    return [
      this.temporal.taskQueue,
      schedule.environmentName,
      schedule.providerConfigKey,
      schedule.connectionId,
      schedule.syncName,
    ].join(':');
  }

  private get minimumMs(): number {
    return parseFrequency(this.config.scripts.syncMinFrequency) ?? 30_000;
  }

  /** The interval the schedule runs at (a default under the minimum is raised to it). */
  intervalMs(schedule: DesiredSchedule): number {
    const override = schedule.frequencyOverride ? parseFrequency(schedule.frequencyOverride) : null;
    return Math.max(override ?? schedule.defaultFrequencyMs, this.minimumMs);
  }

  frequencyOf(schedule: DesiredSchedule): string {
    return schedule.frequencyOverride ?? schedule.defaultFrequency;
  }

  private pausedOf(schedule: DesiredSchedule): boolean {
    return schedule.paused ?? !schedule.autoStart;
  }

  /**
   * Makes Temporal match the database for the scope: creates missing schedules, fixes
   * intervals and paused state, and (with `deleteOrphans`) deletes schedules of this Junction
   * that no longer correspond to a (connection, deployed sync).
   */
  async reconcile(scope: ScheduleScope = {}, deleteOrphans = false): Promise<ReconcileReport> {
    const report: ReconcileReport = { created: 0, updated: 0, deleted: 0, unchanged: 0 };
    const desired = await this.schedules.desired(scope);
    // Temporal answers each schedule call in milliseconds; a few at once keeps a deploy for
    // a thousand connections short without flooding the frontend.
    await pMap(
      desired,
      async (schedule) => {
        report[await this.ensure(schedule)] += 1;
      },
      { concurrency: RECONCILE_CONCURRENCY },
    );
    if (deleteOrphans) {
      // Only this Junction's schedules (its task queue), of the environment when one is given.
      const prefix =
        scope.environmentId === undefined
          ? `${this.temporal.taskQueue}:`
          : `${this.temporal.taskQueue}:${await this.runs.environmentName(scope.environmentId)}:`;
      const wanted = new Set(desired.map((schedule) => this.scheduleId(schedule)));
      const orphans: string[] = [];
      for await (const summary of this.temporal.client.schedule.list()) {
        if (!summary.scheduleId.startsWith(prefix) || wanted.has(summary.scheduleId)) continue;
        orphans.push(summary.scheduleId);
      }
      await pMap(orphans, (id) => this.deleteSchedule(id), { concurrency: RECONCILE_CONCURRENCY });
      report.deleted += orphans.length;
    }
    return report;
  }

  /** Runs the reconciler once across all processes (the one holding the lock does the work). */
  async reconcileEverything(): Promise<ReconcileReport | undefined> {
    return this.schedules.withReconcileLock(() => this.reconcile({}, true));
  }

  private async ensure(schedule: DesiredSchedule): Promise<'created' | 'updated' | 'unchanged'> {
    const id = this.scheduleId(schedule);
    const handle = this.temporal.client.schedule.getHandle(id);
    const everyMs = this.intervalMs(schedule);
    const paused = this.pausedOf(schedule);
    let description: ScheduleDescription;
    try {
      description = await handle.describe();
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
      // The desired state was read a while ago (a reconcile pass takes seconds): a connection
      // deleted meanwhile must not get its schedule back. Checked before creating, and after,
      // since a deletion can fall between the check and the create.
      if (!(await this.stillDesired(schedule))) return 'unchanged';
      await this.create(schedule, id, everyMs, paused);
      if (!(await this.stillDesired(schedule))) {
        await this.deleteSchedule(id);
        return 'unchanged';
      }
      return 'created';
    }
    let changed = false;
    const current = description.spec.intervals?.[0]?.every;
    const action = description.action;
    const argument = (action.type === 'startWorkflow' ? action.args?.[0] : undefined) as
      { connectionRowId?: number; syncName?: string } | undefined;
    if (
      Number(current) !== everyMs ||
      (description.spec.intervals?.length ?? 0) !== 1 ||
      argument?.connectionRowId !== schedule.connectionRowId
    ) {
      await handle.update((previous) => ({
        ...previous,
        spec: { intervals: [{ every: everyMs }] },
        action: this.action(schedule, id),
        policies: { ...previous.policies, overlap: ScheduleOverlapPolicy.BUFFER_ONE },
      }));
      changed = true;
    }
    if (description.state.paused !== paused) {
      // A reconcile pass read the desired state seconds ago: a start or pause made since then
      // has already set Temporal right, and must not be undone. Read this one again first.
      const latest = await this.latest(schedule);
      const wanted = latest ? this.pausedOf(latest) : paused;
      if (description.state.paused !== wanted) {
        if (wanted) await handle.pause('Paused through Junction');
        else await handle.unpause('Started through Junction');
        changed = true;
      }
    }
    return changed ? 'updated' : 'unchanged';
  }

  /**
   * Pauses or unpauses without describing first (a describe is a query the server answers
   * slowly under load); a missing schedule is created in the wanted state.
   */
  private async setPausedState(schedule: DesiredSchedule): Promise<void> {
    const handle = this.temporal.client.schedule.getHandle(this.scheduleId(schedule));
    try {
      if (schedule.paused) await handle.pause('Paused through Junction');
      else await handle.unpause('Started through Junction');
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
      await this.ensure(schedule);
    }
  }

  private action(schedule: DesiredSchedule, id: string) {
    const attributes = runSearchAttributes({
      environment: schedule.environmentName,
      integration: schedule.providerConfigKey,
      connection: schedule.connectionId,
      sync: schedule.syncName,
    });
    return {
      type: 'startWorkflow' as const,
      workflowType: 'syncRunWorkflow',
      workflowId: id,
      taskQueue: this.temporal.taskQueue,
      args: [{ connectionRowId: schedule.connectionRowId, syncName: schedule.syncName }],
      typedSearchAttributes: attributes,
    };
  }

  private async create(
    schedule: DesiredSchedule,
    id: string,
    everyMs: number,
    paused: boolean,
  ): Promise<void> {
    await this.temporal.client.schedule.create({
      scheduleId: id,
      spec: { intervals: [{ every: everyMs }] },
      action: this.action(schedule, id),
      policies: { overlap: ScheduleOverlapPolicy.BUFFER_ONE, catchupWindow: '5 minutes' },
      state: {
        paused,
        note: paused ? 'Paused until started through Junction' : undefined,
        // An auto-start sync runs at once for a new connection, not only after one interval.
        triggerImmediately: !paused && !schedule.hasRun,
      },
      typedSearchAttributes: runSearchAttributes({
        environment: schedule.environmentName,
        integration: schedule.providerConfigKey,
        connection: schedule.connectionId,
        sync: schedule.syncName,
      }),
      memo: { connectionRowId: schedule.connectionRowId },
    });
  }

  private async deleteSchedule(id: string): Promise<void> {
    try {
      await this.temporal.client.schedule.getHandle(id).delete();
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
  }

  private async stillDesired(schedule: DesiredSchedule): Promise<boolean> {
    return (await this.latest(schedule)) !== undefined;
  }

  /** The schedule's desired state read now; undefined when it is no longer wanted. */
  private async latest(schedule: DesiredSchedule): Promise<DesiredSchedule | undefined> {
    const [current] = await this.schedules.desired({
      connectionRowId: schedule.connectionRowId,
      syncNames: [schedule.syncName],
    });
    return current;
  }

  /**
   * Deletes the connection's schedules (so nothing new starts), cancels its running sync
   * workflows, and deletes the schedules once more just before the row goes: a reconcile pass
   * that read the connection before the deletion may have created one meanwhile (and one that
   * creates it after this finds the row gone when it checks again, see `ensure`).
   */
  async removeConnection(connectionRowId: number): Promise<void> {
    const desired = await this.schedules.desired({ connectionRowId });
    const ids = desired.map((schedule) => this.scheduleId(schedule));
    for (const id of ids) await this.deleteSchedule(id);
    await this.cancelRuns(connectionRowId);
    for (const id of ids) await this.deleteSchedule(id);
  }

  private async cancelRuns(connectionRowId: number): Promise<void> {
    const connection = await this.runs.connection(connectionRowId);
    if (!connection) return;
    const query = [
      `TaskQueue = ${JSON.stringify(this.temporal.taskQueue)}`,
      `JunctionEnvironment = ${JSON.stringify(connection.environmentName)}`,
      `JunctionIntegration = ${JSON.stringify(connection.providerConfigKey)}`,
      `JunctionConnection = ${JSON.stringify(connection.connectionId)}`,
      `ExecutionStatus = "Running"`,
    ].join(' AND ');
    for await (const workflow of this.temporal.client.workflow.list({ query })) {
      await this.temporal.client.workflow
        .getHandle(workflow.workflowId, workflow.runId)
        .cancel()
        .catch((error: unknown) => {
          this.logger.warn({ err: error, workflowId: workflow.workflowId }, 'Cancel failed');
        });
    }
  }

  /** The (connection, sync) pairs a request names; 404 naming unknown syncs or connections. */
  async select(environmentId: number, selection: SyncSelection): Promise<DesiredSchedule[]> {
    const connections = await this.runs.connectionsOf(
      environmentId,
      selection.providerConfigKey,
      selection.connectionId,
    );
    if (connections === null) throw new IntegrationNotFoundError(selection.providerConfigKey);
    if (selection.connectionId !== undefined && connections.length === 0) {
      throw new ConnectionNotFoundError(selection.providerConfigKey, [selection.connectionId]);
    }
    const deployed = (
      await this.scripts.summaries(environmentId, {
        providerConfigKey: selection.providerConfigKey,
        kind: 'sync',
      })
    ).map((script) => script.name);
    const unknown = selection.syncs.filter((name) => !deployed.includes(name));
    if (unknown.length > 0) throw new SyncNotFoundError(selection.providerConfigKey, unknown);
    return this.schedules.desired({
      environmentId,
      providerConfigKey: selection.providerConfigKey,
      connectionRowId:
        selection.connectionId === undefined ? undefined : connections[0]?.connectionRowId,
      syncNames: selection.syncs.length > 0 ? selection.syncs : undefined,
    });
  }

  /** start = unpause (and a run now if it never ran). */
  async start(environment: AuthenticatedEnvironment, selection: SyncSelection): Promise<number> {
    const selected = await this.select(environment.id, selection);
    await pMap(
      selected,
      async (schedule) => {
        await this.schedules.setPaused(schedule.connectionRowId, schedule.syncName, false);
        await this.setPausedState({ ...schedule, paused: false });
        if (!schedule.hasRun) {
          await this.temporal.client.schedule
            .getHandle(this.scheduleId(schedule))
            .trigger(ScheduleOverlapPolicy.BUFFER_ONE);
        }
      },
      { concurrency: RECONCILE_CONCURRENCY },
    );
    return selected.length;
  }

  /** pause = pause: a running run finishes, nothing new starts. */
  async pause(environment: AuthenticatedEnvironment, selection: SyncSelection): Promise<number> {
    const selected = await this.select(environment.id, selection);
    await pMap(
      selected,
      async (schedule) => {
        await this.schedules.setPaused(schedule.connectionRowId, schedule.syncName, true);
        await this.setPausedState({ ...schedule, paused: true });
      },
      { concurrency: RECONCILE_CONCURRENCY },
    );
    return selected.length;
  }

  /** trigger = a run now (queued behind a running one); full resync resets the state first. */
  async trigger(
    environment: AuthenticatedEnvironment,
    selection: SyncSelection & { readonly fullResync?: boolean },
  ): Promise<{ connection_id: string; sync: string; schedule_id: string }[]> {
    const selected = await this.select(environment.id, selection);
    const triggered = [];
    for (const schedule of selected) {
      if (selection.fullResync) {
        await this.schedules.resetState(schedule.connectionRowId, schedule.syncName);
      }
      const id = this.scheduleId(schedule);
      // A schedule lost behind Junction's back is recreated (paused as it was) before the run.
      const outcome = await this.ensure({ ...schedule, hasRun: true });
      if (outcome === 'created')
        this.logger.warn({ scheduleId: id }, 'Recreated a missing schedule');
      await this.temporal.client.schedule.getHandle(id).trigger(ScheduleOverlapPolicy.BUFFER_ONE);
      triggered.push({
        connection_id: schedule.connectionId,
        sync: schedule.syncName,
        schedule_id: id,
      });
    }
    return triggered;
  }

  /** Sets (or with null removes) a connection's frequency override; answers the effective one. */
  async updateFrequency(
    environment: AuthenticatedEnvironment,
    request: {
      providerConfigKey: string;
      connectionId: string;
      sync: string;
      frequency: string | null;
    },
  ): Promise<FrequencyAnswer> {
    if (request.frequency !== null) {
      const ms = parseFrequency(request.frequency);
      if (ms === null) {
        throw new InvalidRequestError(`frequency "${request.frequency}" is not a frequency`, [
          { path: 'frequency', message: `must be ${FREQUENCY_FORMS}, or null for the default` },
        ]);
      }
      if (ms < this.minimumMs) {
        throw new InvalidRequestError(`frequency "${request.frequency}" is too short`, [
          {
            path: 'frequency',
            message: `must be at least ${this.config.scripts.syncMinFrequency}`,
          },
        ]);
      }
    }
    const [schedule] = await this.select(environment.id, {
      providerConfigKey: request.providerConfigKey,
      connectionId: request.connectionId,
      syncs: [request.sync],
    });
    if (!schedule) throw new DomainError('sync_not_found', `No sync "${request.sync}"`);
    const frequency = request.frequency?.trim() ?? null;
    await this.schedules.setFrequency(schedule.connectionRowId, schedule.syncName, frequency);
    const updated = { ...schedule, frequencyOverride: frequency };
    await this.ensure(updated);
    return { frequency: this.frequencyOf(updated) };
  }

  /** When the schedule runs next and whether it is paused; undefined when it is missing. */
  async describe(
    schedule: DesiredSchedule,
  ): Promise<{ paused: boolean; next: Date | null } | undefined> {
    try {
      const description = await this.temporal.client.schedule
        .getHandle(this.scheduleId(schedule))
        .describe();
      return {
        paused: description.state.paused,
        next: description.state.paused ? null : (description.info.nextActionTimes[0] ?? null),
      };
    } catch (error) {
      if (error instanceof ScheduleNotFoundError) return undefined;
      throw error;
    }
  }
}

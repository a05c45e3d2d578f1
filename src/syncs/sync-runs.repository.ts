import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { modifyingQuery } from '../database/modifying-query';

export type SyncRunType = 'INITIAL' | 'INCREMENTAL';
export type SyncRunStatus = 'RUNNING' | 'SUCCESS' | 'ERROR' | 'CANCELLED';
export type ModelChanges = Record<string, { added: number; updated: number; deleted: number }>;

/** A connection as a run needs it: its row id and the names it is known by. */
export interface RunConnection {
  readonly connectionRowId: number;
  readonly environmentId: number;
  readonly environmentName: string;
  readonly providerConfigKey: string;
  readonly connectionId: string;
}

export interface SyncRun {
  readonly id: string;
  readonly connectionRowId: number;
  readonly syncName: string;
  readonly scriptId: number | null;
  readonly scriptVersion: number;
  readonly workflowId: string;
  readonly type: SyncRunType;
  readonly status: SyncRunStatus;
  readonly startedAt: Date;
  readonly finishedAt: Date | null;
  readonly results: ModelChanges;
  readonly error: { message: string; reason?: string } | null;
  readonly attempts: number;
}

interface RunRow {
  id: string;
  connection_id: number;
  sync_name: string;
  script_id: number | null;
  script_version: number;
  workflow_id: string;
  type: SyncRunType;
  status: SyncRunStatus;
  started_at: Date;
  finished_at: Date | null;
  results: ModelChanges;
  error: { message: string; reason?: string } | null;
  attempts: number;
}

function toRun(row: RunRow): SyncRun {
  return {
    id: String(row.id),
    connectionRowId: row.connection_id,
    syncName: row.sync_name,
    scriptId: row.script_id,
    scriptVersion: row.script_version,
    workflowId: row.workflow_id,
    type: row.type,
    status: row.status,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    results: row.results,
    error: row.error,
    attempts: row.attempts,
  };
}

const RUN_COLUMNS =
  'id, connection_id, sync_name, script_id, script_version, workflow_id, type, status, started_at, finished_at, results, error, attempts';

/** Sync runs and the per-connection sync state (checkpoint, last successful start). */
@Injectable()
export class SyncRunsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Connections of an integration (one when `connectionId` is given); null when the integration
   * does not exist in the environment.
   */
  async connectionsOf(
    environmentId: number,
    providerConfigKey: string,
    connectionId?: string,
  ): Promise<{ connectionRowId: number; connectionId: string }[] | null> {
    const rows: { integration_id: number; id: number | null; connection_id: string | null }[] =
      await this.dataSource.query(
        `SELECT i.id AS integration_id, c.id, c.connection_id
           FROM integrations i
           LEFT JOIN connections c ON c.integration_id = i.id
                                  AND ($3::text IS NULL OR c.connection_id = $3)
          WHERE i.environment_id = $1 AND i.unique_key = $2
          ORDER BY c.id`,
        [environmentId, providerConfigKey, connectionId ?? null],
      );
    if (rows.length === 0) return null;
    return rows.flatMap((row) =>
      row.id === null || row.connection_id === null
        ? []
        : [{ connectionRowId: row.id, connectionId: row.connection_id }],
    );
  }

  async hasWebhookUrl(environmentId: number): Promise<boolean> {
    const rows: { has: boolean }[] = await this.dataSource.query(
      'SELECT webhook_url IS NOT NULL AS has FROM environments WHERE id = $1',
      [environmentId],
    );
    return rows[0]?.has ?? false;
  }

  async environmentName(environmentId: number): Promise<string> {
    const rows: { name: string }[] = await this.dataSource.query(
      'SELECT name FROM environments WHERE id = $1',
      [environmentId],
    );
    const name = rows[0]?.name;
    if (!name) throw new Error(`environment ${environmentId} does not exist`);
    return name;
  }

  async connection(connectionRowId: number): Promise<RunConnection | null> {
    const rows: {
      id: number;
      environment_id: number;
      environment_name: string;
      unique_key: string;
      connection_id: string;
    }[] = await this.dataSource.query(
      `SELECT c.id, c.environment_id, e.name AS environment_name, i.unique_key, c.connection_id
         FROM connections c
         JOIN integrations i ON i.id = c.integration_id
         JOIN environments e ON e.id = c.environment_id
        WHERE c.id = $1`,
      [connectionRowId],
    );
    const row = rows[0];
    return row
      ? {
          connectionRowId: row.id,
          environmentId: row.environment_id,
          environmentName: row.environment_name,
          providerConfigKey: row.unique_key,
          connectionId: row.connection_id,
        }
      : null;
  }

  /**
   * Records the start of a run once per workflow run (a retried activity gets the same row).
   * The first run of a connection's sync that has not yet succeeded is INITIAL.
   */
  async begin(input: {
    connectionRowId: number;
    syncName: string;
    scriptId: number;
    scriptVersion: number;
    workflowId: string;
    temporalRunId: string;
  }): Promise<{ run: SyncRun; created: boolean }> {
    const rows = await modifyingQuery<RunRow & { created: boolean }>(
      this.dataSource,
      `INSERT INTO sync_runs (connection_id, sync_name, script_version, workflow_id, temporal_run_id, script_id, type, status)
       VALUES ($1, $2, $3, $4, $5, $6,
               CASE WHEN EXISTS (SELECT 1 FROM sync_runs
                                  WHERE connection_id = $1 AND sync_name = $2 AND status = 'SUCCESS')
                    THEN 'INCREMENTAL' ELSE 'INITIAL' END,
               'RUNNING')
       ON CONFLICT (temporal_run_id) DO UPDATE SET attempts = sync_runs.attempts
       RETURNING ${RUN_COLUMNS}, (xmax = 0) AS created`,
      [
        input.connectionRowId,
        input.syncName,
        input.scriptVersion,
        input.workflowId,
        input.temporalRunId,
        input.scriptId,
      ],
    );
    const row = rows[0];
    if (!row) throw new Error('sync run insert returned nothing');
    return { run: toRun(row), created: row.created };
  }

  /** The script's attempt number (a run taken over by another worker is attempt 2 or more). */
  async noteAttempt(runId: string, attempt: number): Promise<void> {
    await this.dataSource.query(
      'UPDATE sync_runs SET attempts = GREATEST(attempts, $2) WHERE id = $1',
      [runId, attempt],
    );
  }

  async find(runId: string): Promise<SyncRun | null> {
    const rows: RunRow[] = await this.dataSource.query(
      `SELECT ${RUN_COLUMNS} FROM sync_runs WHERE id = $1`,
      [runId],
    );
    return rows[0] ? toRun(rows[0]) : null;
  }

  /** Sets the outcome once: a run that already finished keeps its first outcome. */
  async finish(
    runId: string,
    status: Exclude<SyncRunStatus, 'RUNNING'>,
    results: ModelChanges,
    error: { message: string; reason?: string } | null,
  ): Promise<SyncRun> {
    const rows = await modifyingQuery<RunRow>(
      this.dataSource,
      `UPDATE sync_runs
          SET status = CASE WHEN status = 'RUNNING' THEN $2 ELSE status END,
              finished_at = COALESCE(finished_at, clock_timestamp()),
              results = CASE WHEN status = 'RUNNING' THEN $3::jsonb ELSE results END,
              error = CASE WHEN status = 'RUNNING' THEN $4::jsonb ELSE error END
        WHERE id = $1
        RETURNING ${RUN_COLUMNS}`,
      [runId, status, JSON.stringify(results), error ? JSON.stringify(error) : null],
    );
    const row = rows[0];
    if (!row) throw new Error(`sync run ${runId} does not exist`);
    return toRun(row);
  }

  async list(
    connectionRowId: number,
    syncName: string | undefined,
    limit: number,
  ): Promise<SyncRun[]> {
    const rows: RunRow[] = await this.dataSource.query(
      `SELECT ${RUN_COLUMNS} FROM sync_runs
        WHERE connection_id = $1 AND ($2::text IS NULL OR sync_name = $2)
        ORDER BY id DESC LIMIT $3`,
      [connectionRowId, syncName ?? null, limit],
    );
    return rows.map(toRun);
  }

  async latestFinished(connectionRowId: number, syncName: string): Promise<SyncRun | null> {
    const rows: RunRow[] = await this.dataSource.query(
      `SELECT ${RUN_COLUMNS} FROM sync_runs
        WHERE connection_id = $1 AND sync_name = $2 AND status <> 'RUNNING'
        ORDER BY id DESC LIMIT 1`,
      [connectionRowId, syncName],
    );
    return rows[0] ? toRun(rows[0]) : null;
  }

  async checkpoint(connectionRowId: number, syncName: string): Promise<unknown> {
    const rows: { checkpoint: unknown }[] = await this.dataSource.query(
      'SELECT checkpoint FROM sync_states WHERE connection_id = $1 AND sync_name = $2',
      [connectionRowId, syncName],
    );
    return rows[0]?.checkpoint ?? null;
  }

  async saveCheckpoint(
    connectionRowId: number,
    syncName: string,
    checkpoint: unknown,
  ): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO sync_states (connection_id, sync_name, checkpoint) VALUES ($1, $2, $3::jsonb)
       ON CONFLICT (connection_id, sync_name)
       DO UPDATE SET checkpoint = EXCLUDED.checkpoint, updated_at = now()`,
      [connectionRowId, syncName, checkpoint === undefined ? null : JSON.stringify(checkpoint)],
    );
  }

  async lastSyncDate(connectionRowId: number, syncName: string): Promise<Date | null> {
    const rows: { last_sync_date: Date | null }[] = await this.dataSource.query(
      'SELECT last_sync_date FROM sync_states WHERE connection_id = $1 AND sync_name = $2',
      [connectionRowId, syncName],
    );
    return rows[0]?.last_sync_date ?? null;
  }

  /** After a successful run: the next incremental run asks for changes since this run started. */
  async markSucceeded(connectionRowId: number, syncName: string, startedAt: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO sync_states (connection_id, sync_name, last_sync_date) VALUES ($1, $2, $3)
       ON CONFLICT (connection_id, sync_name)
       DO UPDATE SET last_sync_date = GREATEST(sync_states.last_sync_date, EXCLUDED.last_sync_date),
                     updated_at = now()`,
      [connectionRowId, syncName, startedAt],
    );
  }
}

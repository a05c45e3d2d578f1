import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/** What Temporal should have for one (connection, sync): derived from the database alone. */
export interface DesiredSchedule {
  readonly environmentId: number;
  readonly environmentName: string;
  readonly providerConfigKey: string;
  readonly connectionRowId: number;
  readonly connectionId: string;
  readonly syncName: string;
  /** The sync's default frequency, as written and in milliseconds. */
  readonly defaultFrequency: string;
  readonly defaultFrequencyMs: number;
  /** The connection's override, as written, or null. */
  readonly frequencyOverride: string | null;
  readonly autoStart: boolean;
  /** Set by start (false) and pause (true); null until either is used. */
  readonly paused: boolean | null;
  readonly hasRun: boolean;
}

export interface ScheduleScope {
  readonly environmentId?: number;
  readonly providerConfigKey?: string;
  readonly connectionRowId?: number;
  readonly syncNames?: readonly string[];
}

interface Row {
  environment_id: number;
  environment_name: string;
  unique_key: string;
  connection_row_id: number;
  connection_id: string;
  sync_name: string;
  definition: { frequency: string; frequency_ms: number; auto_start?: boolean };
  frequency_override: string | null;
  paused: boolean | null;
  has_run: boolean;
}

/** Every (connection, deployed sync) pair with its state: the schedules that must exist. */
@Injectable()
export class SyncSchedulesRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async desired(scope: ScheduleScope = {}): Promise<DesiredSchedule[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT c.environment_id, e.name AS environment_name, i.unique_key, c.id AS connection_row_id,
              c.connection_id, s.name AS sync_name, v.definition, st.frequency_override, st.paused,
              EXISTS (SELECT 1 FROM sync_runs r WHERE r.connection_id = c.id AND r.sync_name = s.name) AS has_run
         FROM connections c
         JOIN environments e ON e.id = c.environment_id
         JOIN integrations i ON i.id = c.integration_id
         JOIN scripts s ON s.integration_id = i.id AND s.kind = 'sync'
         JOIN script_versions v ON v.script_id = s.id AND v.version = s.version
         LEFT JOIN sync_states st ON st.connection_id = c.id AND st.sync_name = s.name
        WHERE ($1::int IS NULL OR c.environment_id = $1)
          AND ($2::text IS NULL OR i.unique_key = $2)
          AND ($3::int IS NULL OR c.id = $3)
          AND ($4::text[] IS NULL OR s.name = ANY($4))
        ORDER BY c.id, s.name`,
      [
        scope.environmentId ?? null,
        scope.providerConfigKey ?? null,
        scope.connectionRowId ?? null,
        scope.syncNames ? [...scope.syncNames] : null,
      ],
    );
    return rows.map((row) => ({
      environmentId: row.environment_id,
      environmentName: row.environment_name,
      providerConfigKey: row.unique_key,
      connectionRowId: row.connection_row_id,
      connectionId: row.connection_id,
      syncName: row.sync_name,
      defaultFrequency: row.definition.frequency,
      defaultFrequencyMs: row.definition.frequency_ms,
      frequencyOverride: row.frequency_override,
      autoStart: row.definition.auto_start ?? true,
      paused: row.paused,
      hasRun: row.has_run,
    }));
  }

  async setPaused(connectionRowId: number, syncName: string, paused: boolean): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO sync_states (connection_id, sync_name, paused) VALUES ($1, $2, $3)
       ON CONFLICT (connection_id, sync_name) DO UPDATE SET paused = EXCLUDED.paused, updated_at = now()`,
      [connectionRowId, syncName, paused],
    );
  }

  async setFrequency(
    connectionRowId: number,
    syncName: string,
    frequency: string | null,
  ): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO sync_states (connection_id, sync_name, frequency_override) VALUES ($1, $2, $3)
       ON CONFLICT (connection_id, sync_name)
       DO UPDATE SET frequency_override = EXCLUDED.frequency_override, updated_at = now()`,
      [connectionRowId, syncName, frequency],
    );
  }

  /** Full resync: the next run starts from nothing (records are kept and reconciled by it). */
  async resetState(connectionRowId: number, syncName: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE sync_states SET checkpoint = NULL, last_sync_date = NULL, updated_at = now()
        WHERE connection_id = $1 AND sync_name = $2`,
      [connectionRowId, syncName],
    );
  }

  /**
   * Runs one reconciler at a time across processes (undefined when another holds the lock). The
   * embedded database of the local mode serves one process through one connection: no lock there,
   * and no connection held aside.
   */
  async withReconcileLock<T>(run: () => Promise<T>): Promise<T | undefined> {
    if (!this.config.database.url) return run();
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [row] = (await runner.query('SELECT pg_try_advisory_lock(7302, 0) AS locked')) as {
        locked: boolean;
      }[];
      if (!row?.locked) return undefined;
      try {
        return await run();
      } finally {
        await runner.query('SELECT pg_advisory_unlock(7302, 0)');
      }
    } finally {
      await runner.release();
    }
  }
}

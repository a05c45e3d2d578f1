import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { modifyingQuery } from '../database/modifying-query';
import type { DeployedScript, ScriptDefinitionJson, ScriptKind } from './script.types';

/** A deployed script without its bundle, for listings. */
export type ScriptSummary = Omit<DeployedScript, 'bundle'>;

/** What a deploy compares against: the current version of each script of the environment. */
export interface ScriptHead {
  readonly id: number;
  readonly providerConfigKey: string;
  readonly kind: ScriptKind;
  readonly name: string;
  readonly version: number;
  readonly hash: string;
}

export interface ScriptFilter {
  readonly providerConfigKey?: string;
  readonly kind?: ScriptKind;
}

/** First key of the two-key advisory lock that serialises deploys; the second is the environment. */
const DEPLOY_LOCK_CLASS = 7_301;

const SUMMARY_COLUMNS = `
  s.id AS "scriptId", s.environment_id AS "environmentId", s.integration_id AS "integrationId",
  i.unique_key AS "providerConfigKey", s.kind, s.name, v.version, v.hash, v.definition,
  v.created_at AS "deployedAt"`;

const FROM_VERSIONS = `
  FROM scripts s
  JOIN integrations i ON i.id = s.integration_id
  JOIN script_versions v ON v.script_id = s.id`;

const CURRENT = `${FROM_VERSIONS} AND v.version = s.version`;

@Injectable()
export class ScriptsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The current version without its bundle (what callers need to start a run). */
  async findCurrentSummary(
    environmentId: number,
    providerConfigKey: string,
    kind: ScriptKind,
    name: string,
  ): Promise<ScriptSummary | null> {
    const rows: ScriptSummary[] = await this.db.query(
      `SELECT ${SUMMARY_COLUMNS} ${CURRENT}
       WHERE s.environment_id = $1 AND i.unique_key = $2 AND s.kind = $3 AND s.name = $4`,
      [environmentId, providerConfigKey, kind, name],
    );
    return rows[0] ?? null;
  }

  async findCurrent(
    environmentId: number,
    providerConfigKey: string,
    kind: ScriptKind,
    name: string,
  ): Promise<DeployedScript | null> {
    const rows: DeployedScript[] = await this.db.query(
      `SELECT ${SUMMARY_COLUMNS}, v.bundle ${CURRENT}
       WHERE s.environment_id = $1 AND i.unique_key = $2 AND s.kind = $3 AND s.name = $4`,
      [environmentId, providerConfigKey, kind, name],
    );
    return rows[0] ?? null;
  }

  /**
   * One version of one script. Script ids are global, so the id alone selects the environment:
   * callers get it from an environment-scoped read (`findCurrent`, a sync run's record).
   */
  async findVersion(scriptId: number, version: number): Promise<DeployedScript | null> {
    const rows: DeployedScript[] = await this.db.query(
      `SELECT ${SUMMARY_COLUMNS}, v.bundle ${FROM_VERSIONS} WHERE s.id = $1 AND v.version = $2`,
      [scriptId, version],
    );
    return rows[0] ?? null;
  }

  list(environmentId: number, filter: ScriptFilter): Promise<DeployedScript[]> {
    return this.listCurrent<DeployedScript>(`${SUMMARY_COLUMNS}, v.bundle`, environmentId, filter);
  }

  /** The current versions without their bundles. */
  listSummaries(environmentId: number, filter: ScriptFilter): Promise<ScriptSummary[]> {
    return this.listCurrent<ScriptSummary>(SUMMARY_COLUMNS, environmentId, filter);
  }

  private listCurrent<Row>(
    columns: string,
    environmentId: number,
    filter: ScriptFilter,
  ): Promise<Row[]> {
    return this.db.query(
      `SELECT ${columns} ${CURRENT}
       WHERE s.environment_id = $1
         AND ($2::text IS NULL OR i.unique_key = $2) AND ($3::text IS NULL OR s.kind = $3)
       ORDER BY i.unique_key, s.kind, s.name`,
      [environmentId, filter.providerConfigKey ?? null, filter.kind ?? null],
    );
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** Held until the transaction ends: one deploy per environment at a time. */
  async lockEnvironment(manager: EntityManager, environmentId: number): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock($1, $2)', [DEPLOY_LOCK_CLASS, environmentId]);
  }

  /** Integration ids by key; the rows stay locked against deletion until the transaction ends. */
  async lockIntegrations(
    manager: EntityManager,
    environmentId: number,
    keys: readonly string[],
  ): Promise<Map<string, number>> {
    const rows: Array<{ id: number; uniqueKey: string }> = await manager.query(
      `SELECT id, unique_key AS "uniqueKey" FROM integrations
       WHERE environment_id = $1 AND unique_key = ANY($2) ORDER BY id FOR SHARE`,
      [environmentId, keys],
    );
    return new Map(rows.map((row) => [row.uniqueKey, row.id]));
  }

  lockHeads(manager: EntityManager, environmentId: number): Promise<ScriptHead[]> {
    return manager.query(
      `SELECT s.id, i.unique_key AS "providerConfigKey", s.kind, s.name, s.version, v.hash
       ${CURRENT} WHERE s.environment_id = $1 ORDER BY s.id FOR UPDATE OF s`,
      [environmentId],
    );
  }

  async insertScript(
    manager: EntityManager,
    environmentId: number,
    integrationId: number,
    kind: ScriptKind,
    name: string,
  ): Promise<number> {
    const rows: Array<{ id: number }> = await manager.query(
      `INSERT INTO scripts (environment_id, integration_id, kind, name, version)
       VALUES ($1, $2, $3, $4, 1) RETURNING id`,
      [environmentId, integrationId, kind, name],
    );
    const id = rows[0]?.id;
    if (id === undefined) throw new Error('Script insert returned no row');
    return id;
  }

  async insertVersion(
    manager: EntityManager,
    scriptId: number,
    version: number,
    values: { hash: string; definition: ScriptDefinitionJson; bundle: string },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO script_versions (script_id, version, hash, definition, bundle)
       VALUES ($1, $2, $3, $4::jsonb, $5)`,
      [scriptId, version, values.hash, JSON.stringify(values.definition), values.bundle],
    );
  }

  async moveVersion(
    manager: EntityManager,
    environmentId: number,
    scriptId: number,
    version: number,
  ): Promise<void> {
    await manager.query(
      'UPDATE scripts SET version = $3, updated_at = now() WHERE environment_id = $1 AND id = $2',
      [environmentId, scriptId, version],
    );
  }

  /** Deletes scripts with all their versions. */
  async deleteScripts(
    manager: EntityManager,
    environmentId: number,
    ids: readonly number[],
  ): Promise<number> {
    const rows = await modifyingQuery(
      manager,
      'DELETE FROM scripts WHERE environment_id = $1 AND id = ANY($2) RETURNING id',
      [environmentId, ids],
    );
    return rows.length;
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ChangeFeed } from '../database/change-feed';
import { modifyingQuery } from '../database/modifying-query';
import { preparedQuery } from '../database/prepared-query';
import { IntegrationEntity } from '../integrations/entities/integration.entity';

/** A connection joined with what callers need of its integration. */
export interface ConnectionRow {
  readonly id: number;
  readonly environmentId: number;
  readonly integrationId: number;
  readonly providerConfigKey: string;
  readonly provider: string;
  readonly connectionId: string;
  readonly credentials: string;
  readonly credentialsVersion: number;
  readonly connectionConfig: Record<string, unknown>;
  readonly metadata: Record<string, unknown> | null;
  readonly refreshFailures: number;
  readonly lastRefreshError: string | null;
  /** Text, at full precision, so waiters compare it exactly. */
  readonly lastRefreshFailureAt: string | null;
  /** The last refresh was refused within the cool-down (database clock). */
  readonly refusedRecently: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** The integration's row, so a read needs one query. */
  readonly integration: IntegrationEntity;
}

interface FlatRow extends Omit<ConnectionRow, 'integration'> {
  readonly integrationClientId: string | null;
  readonly integrationClientSecret: string | null;
  readonly integrationScopes: string | null;
  readonly integrationCreatedAt: Date;
  readonly integrationUpdatedAt: Date;
}

function withIntegration(row: FlatRow): ConnectionRow {
  const {
    integrationClientId,
    integrationClientSecret,
    integrationScopes,
    integrationCreatedAt,
    integrationUpdatedAt,
    ...connection
  } = row;
  const integration = Object.assign(new IntegrationEntity(), {
    id: row.integrationId,
    environmentId: row.environmentId,
    uniqueKey: row.providerConfigKey,
    provider: row.provider,
    oauthClientId: integrationClientId,
    oauthClientSecret: integrationClientSecret,
    oauthScopes: integrationScopes,
    createdAt: integrationCreatedAt,
    updatedAt: integrationUpdatedAt,
  });
  return { ...connection, integration };
}

/**
 * After a refusal, further refreshes of the same credentials wait this long, so a herd of callers
 * does not hammer the provider with a refresh token it just refused.
 */
export const REFUSAL_COOL_DOWN_SECONDS = 10;

const SELECT_ROW = `
  SELECT c.id, c.environment_id AS "environmentId", c.integration_id AS "integrationId",
         i.unique_key AS "providerConfigKey", i.provider, c.connection_id AS "connectionId",
         c.credentials, c.credentials_version AS "credentialsVersion",
         c.connection_config AS "connectionConfig", c.metadata,
         c.refresh_failures AS "refreshFailures", c.last_refresh_error AS "lastRefreshError",
         c.last_refresh_failure_at::text AS "lastRefreshFailureAt",
         COALESCE(c.last_refresh_failure_at > now() - interval '${REFUSAL_COOL_DOWN_SECONDS} seconds', false) AS "refusedRecently",
         c.created_at AS "createdAt", c.updated_at AS "updatedAt",
         i.oauth_client_id AS "integrationClientId", i.oauth_client_secret AS "integrationClientSecret",
         i.oauth_scopes AS "integrationScopes", i.created_at AS "integrationCreatedAt", i.updated_at AS "integrationUpdatedAt"
  FROM connections c JOIN integrations i ON i.id = c.integration_id`;

const FIND_BY_KEY = `${SELECT_ROW} WHERE c.environment_id = $1 AND i.environment_id = $1 AND i.unique_key = $2 AND c.connection_id = $3`;

export interface ImportValues {
  readonly credentials: string;
  readonly credentialsExpiresAt: Date | null;
  readonly connectionConfig: Record<string, unknown>;
  readonly metadata: Record<string, unknown> | null;
}

@Injectable()
export class ConnectionsRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly changes: ChangeFeed,
  ) {}

  async find(
    environmentId: number,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<ConnectionRow | undefined> {
    // The read behind every getConnection and proxied request: prepared once per connection.
    const rows = await preparedQuery<FlatRow>(this.db, 'junction_connection_by_key', FIND_BY_KEY, [
      environmentId,
      providerConfigKey,
      connectionId,
    ]);
    return rows[0] && withIntegration(rows[0]);
  }

  async findById(environmentId: number, id: number): Promise<ConnectionRow | undefined> {
    const rows: FlatRow[] = await this.db.query(
      `${SELECT_ROW} WHERE c.environment_id = $1 AND c.id = $2`,
      [environmentId, id],
    );
    return rows[0] && withIntegration(rows[0]);
  }

  async list(environmentId: number, connectionId?: string): Promise<ConnectionRow[]> {
    const rows: FlatRow[] =
      connectionId === undefined
        ? await this.db.query(`${SELECT_ROW} WHERE c.environment_id = $1 ORDER BY c.id`, [
            environmentId,
          ])
        : await this.db.query(
            `${SELECT_ROW} WHERE c.environment_id = $1 AND c.connection_id = $2 ORDER BY c.id`,
            [environmentId, connectionId],
          );
    return rows.map(withIntegration);
  }

  /** Creates the connection, or replaces the credentials of the existing one; true when created. */
  async upsert(
    environmentId: number,
    integrationId: number,
    connectionId: string,
    values: ImportValues,
  ): Promise<{ id: number; created: boolean }> {
    const rows: Array<{ id: number; created: boolean }> = await this.db.query(
      `INSERT INTO connections (environment_id, integration_id, connection_id, credentials, credentials_expires_at, connection_config, metadata)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (integration_id, connection_id) DO UPDATE SET
         credentials = EXCLUDED.credentials,
         credentials_version = connections.credentials_version + 1,
         credentials_expires_at = EXCLUDED.credentials_expires_at,
         connection_config = EXCLUDED.connection_config,
         metadata = COALESCE(EXCLUDED.metadata, connections.metadata),
         refresh_failures = 0, last_refresh_error = NULL, last_refresh_failure_at = NULL,
         updated_at = now()
       RETURNING id, (xmax = 0) AS created`,
      [
        environmentId,
        integrationId,
        connectionId,
        values.credentials,
        values.credentialsExpiresAt,
        values.connectionConfig,
        values.metadata,
      ],
    );
    const row = rows[0];
    if (!row) throw new Error('Upsert returned no row');
    this.changes.announce('connection', row.id);
    return row;
  }

  async delete(environmentId: number, id: number): Promise<boolean> {
    const rows = await modifyingQuery(
      this.db,
      'DELETE FROM connections WHERE environment_id = $1 AND id = $2 RETURNING id',
      [environmentId, id],
    );
    this.changes.announce('connection', id);
    return rows.length > 0;
  }

  /**
   * Takes the refresh lease unless another holder's lease is still running (database clock).
   * One autocommit statement: no lock outlives it.
   */
  async tryAcquireRefreshLease(
    environmentId: number,
    id: number,
    owner: string,
    leaseMs: number,
  ): Promise<ConnectionRow | undefined> {
    const rows = await modifyingQuery<{ id: number }>(
      this.db,
      `UPDATE connections SET refresh_lease_owner = $3, refresh_lease_until = now() + ($4 || ' milliseconds')::interval
       WHERE environment_id = $1 AND id = $2 AND (refresh_lease_until IS NULL OR refresh_lease_until < now())
       RETURNING id`,
      [environmentId, id, owner, String(leaseMs)],
    );
    return rows.length > 0 ? this.findById(environmentId, id) : undefined;
  }

  async releaseRefreshLease(environmentId: number, id: number, owner: string): Promise<void> {
    await this.db.query(
      'UPDATE connections SET refresh_lease_owner = NULL, refresh_lease_until = NULL WHERE environment_id = $1 AND id = $2 AND refresh_lease_owner = $3',
      [environmentId, id, owner],
    );
  }

  /** Stores refreshed credentials and frees the lease, only if this owner still holds it. */
  async completeRefresh(
    environmentId: number,
    id: number,
    owner: string,
    credentials: string,
    expiresAt: Date | null,
  ): Promise<boolean> {
    const rows = await modifyingQuery(
      this.db,
      `UPDATE connections SET credentials = $4, credentials_expires_at = $5, credentials_version = credentials_version + 1,
         refresh_lease_owner = NULL, refresh_lease_until = NULL, refresh_failures = 0, last_refresh_error = NULL,
         last_refresh_at = now(), updated_at = now()
       WHERE environment_id = $1 AND id = $2 AND refresh_lease_owner = $3 RETURNING id`,
      [environmentId, id, owner, credentials, expiresAt],
    );
    this.changes.announce('connection', id);
    return rows.length > 0;
  }

  async recordRefreshFailure(
    environmentId: number,
    id: number,
    owner: string,
    error: string,
  ): Promise<void> {
    await this.db.query(
      `UPDATE connections SET refresh_failures = refresh_failures + 1, last_refresh_error = $4,
         last_refresh_failure_at = clock_timestamp(), refresh_lease_owner = NULL, refresh_lease_until = NULL
       WHERE environment_id = $1 AND id = $2 AND refresh_lease_owner = $3`,
      [environmentId, id, owner, error],
    );
    this.changes.announce('connection', id);
  }

  /** Locks the named connections of one integration for a metadata change. */
  lockForMetadata(
    manager: EntityManager,
    environmentId: number,
    integrationId: number,
    connectionIds: readonly string[],
  ): Promise<
    Array<{ id: number; connectionId: string; metadata: Record<string, unknown> | null }>
  > {
    return manager.query(
      `SELECT id, connection_id AS "connectionId", metadata FROM connections
       WHERE environment_id = $1 AND integration_id = $2 AND connection_id = ANY($3) ORDER BY id FOR UPDATE`,
      [environmentId, integrationId, connectionIds],
    );
  }

  async writeMetadata(
    manager: EntityManager,
    environmentId: number,
    id: number,
    metadata: Record<string, unknown>,
  ): Promise<void> {
    await manager.query(
      'UPDATE connections SET metadata = $3, updated_at = now() WHERE environment_id = $1 AND id = $2',
      [environmentId, id, metadata],
    );
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }
}

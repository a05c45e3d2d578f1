import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { SecretBox } from '../crypto/secret-box';
import { ChangeFeed } from '../database/change-feed';
import {
  IntegrationsService,
  type ResolvedIntegration,
} from '../integrations/integrations.service';
import { type CachedConnection, ConnectionCache } from './connection-cache';
import { ConnectionsRepository, type ConnectionRow } from './connections.repository';
import { CredentialRefreshService, type FreshCredentials } from './credential-refresh.service';
import {
  CREDENTIALS_CONTEXT,
  credentialsView,
  needsRefresh,
  type StoredCredentials,
} from './credentials';
import { ConnectionLifecycle } from './connection-lifecycle';
import type { ImportConnectionDto } from './dto/import-connection.dto';
import { credentialsFromImport } from './import-credentials';

export class ConnectionNotFoundError extends DomainError {
  constructor(providerConfigKey: string, connectionIds: readonly string[]) {
    super(
      'connection_not_found',
      `No connection ${connectionIds.map((id) => `"${id}"`).join(', ')} for integration "${providerConfigKey}"`,
    );
  }
}

export interface ConnectionSummary {
  readonly id: number;
  readonly connection_id: string;
  readonly provider: string;
  readonly provider_config_key: string;
  readonly created: string;
  readonly metadata: Record<string, unknown> | null;
}

export interface ConnectionView {
  readonly id: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly provider_config_key: string;
  readonly provider: string;
  readonly connection_id: string;
  readonly credentials?: Record<string, unknown>;
  readonly connection_config: Record<string, unknown>;
  readonly metadata: Record<string, unknown> | null;
}

export interface GetConnectionOptions {
  readonly forceRefresh: boolean;
  readonly includeRefreshToken: boolean;
}

/** A connection with usable credentials and its resolved integration. */
export type FreshConnection = FreshCredentials & { readonly integration: ResolvedIntegration };

@Injectable()
export class ConnectionsService {
  private readonly withIntegrations = new WeakMap<CachedConnection, FreshConnection>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsRepository,
    private readonly integrations: IntegrationsService,
    private readonly refresher: CredentialRefreshService,
    private readonly secrets: SecretBox,
    private readonly lifecycle: ConnectionLifecycle,
    private readonly cache: ConnectionCache,
    private readonly changes: ChangeFeed,
  ) {}

  async import(
    environmentId: number,
    body: ImportConnectionDto,
  ): Promise<{ view: ConnectionView; created: boolean }> {
    const integration = await this.integrations.resolve(environmentId, body.provider_config_key);
    const { credentials, expiresAt } = credentialsFromImport(body, integration.provider);
    if (body.metadata) this.checkMetadataSize(body.metadata);
    const { id, created } = await this.connections.upsert(
      environmentId,
      integration.entity.id,
      body.connection_id,
      {
        credentials: this.secrets.encryptJson(credentials, CREDENTIALS_CONTEXT),
        credentialsExpiresAt: expiresAt,
        connectionConfig: body.connection_config ?? {},
        metadata: body.metadata ?? null,
      },
    );
    const row = await this.connections.findById(environmentId, id);
    if (!row) throw new ConnectionNotFoundError(body.provider_config_key, [body.connection_id]);
    if (created) await this.lifecycle.created({ environmentId, connectionRowId: id });
    return { view: view(row), created };
  }

  async list(environmentId: number, connectionId?: string): Promise<ConnectionSummary[]> {
    const rows = await this.connections.list(environmentId, connectionId);
    return rows.map((row) => ({
      id: row.id,
      connection_id: row.connectionId,
      provider: row.provider,
      provider_config_key: row.providerConfigKey,
      created: row.createdAt.toISOString(),
      metadata: row.metadata,
    }));
  }

  /** The connection with usable credentials, refreshed first when needed. */
  async get(
    environmentId: number,
    providerConfigKey: string,
    connectionId: string,
    options: GetConnectionOptions,
  ): Promise<ConnectionView> {
    const fresh = await this.fresh(
      environmentId,
      providerConfigKey,
      connectionId,
      options.forceRefresh,
    );
    return {
      ...view(fresh.row),
      credentials: credentialsView(fresh.credentials, options.includeRefreshToken),
    };
  }

  /**
   * Usable credentials for getConnection, the proxy and scripts: from the connection cache when
   * it holds a token that needs no refresh, else read (and refreshed when due) and remembered.
   */
  async fresh(
    environmentId: number,
    providerConfigKey: string,
    connectionId: string,
    forceRefresh = false,
  ): Promise<FreshConnection> {
    if (!forceRefresh) {
      const hit = this.cache.get(environmentId, providerConfigKey, connectionId);
      if (hit) {
        const integration = await this.integrations.resolveEntity(
          environmentId,
          hit.row.integration,
        );
        if (!needsRefresh(hit.credentials, integration.provider))
          return this.withIntegration(hit, integration);
      }
    }
    const generation = this.cache.generation;
    const row = await this.require(environmentId, providerConfigKey, connectionId);
    const integration = await this.integrations.resolveEntity(environmentId, row.integration);
    const fresh = await this.refresher.fresh(row, integration, forceRefresh);
    this.cache.remember(providerConfigKey, connectionId, fresh, generation);
    return { ...fresh, integration };
  }

  /**
   * `fresh` without waiting, for the proxy's hot path: the cached connection when everything it
   * needs is in memory and its token needs no refresh; undefined when `fresh` must run.
   */
  freshCached(
    environmentId: number,
    providerConfigKey: string,
    connectionId: string,
  ): FreshConnection | undefined {
    const hit = this.cache.get(environmentId, providerConfigKey, connectionId);
    if (!hit) return undefined;
    const integration = this.integrations.resolveEntityCached(environmentId, hit.row.integration);
    if (!integration || needsRefresh(hit.credentials, integration.provider)) return undefined;
    return this.withIntegration(hit, integration);
  }

  /** One object per cached connection and integration, so a cache hit allocates none. */
  private withIntegration(
    hit: CachedConnection,
    integration: ResolvedIntegration,
  ): FreshConnection {
    const known = this.withIntegrations.get(hit);
    if (known?.integration === integration) return known;
    const fresh: FreshConnection = { ...hit, integration };
    this.withIntegrations.set(hit, fresh);
    return fresh;
  }

  /** The internal id of a connection of this environment, for the records and action routes. */
  async resolveId(
    environmentId: number,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<number> {
    const hit = this.cache.get(environmentId, providerConfigKey, connectionId);
    if (hit) return hit.row.id;
    // Remembered as read (never refreshed here): a later getConnection checks expiry on a hit.
    const generation = this.cache.generation;
    const row = await this.require(environmentId, providerConfigKey, connectionId);
    let credentials: StoredCredentials;
    try {
      credentials = this.refresher.decrypt(row);
    } catch {
      return row.id; // unreadable credentials are getConnection's error to report, not this route's
    }
    this.cache.remember(providerConfigKey, connectionId, { row, credentials }, generation);
    return row.id;
  }

  async delete(
    environmentId: number,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<void> {
    const row = await this.require(environmentId, providerConfigKey, connectionId);
    await this.lifecycle.deleting({ environmentId, connectionRowId: row.id });
    if (!(await this.connections.delete(environmentId, row.id)))
      throw new ConnectionNotFoundError(providerConfigKey, [connectionId]);
  }

  /** Replaces (`merge` false) or shallow-merges the metadata of one or several connections, all or none. */
  async writeMetadata(
    environmentId: number,
    providerConfigKey: string,
    connectionIds: readonly string[],
    metadata: Record<string, unknown>,
    merge: boolean,
  ): Promise<void> {
    const integration = await this.integrations.resolve(environmentId, providerConfigKey);
    const unique = [...new Set(connectionIds)];
    const written = await this.connections.transaction(async (manager) => {
      const rows = await this.connections.lockForMetadata(
        manager,
        environmentId,
        integration.entity.id,
        unique,
      );
      const found = new Set(rows.map((row) => row.connectionId));
      const missing = unique.filter((id) => !found.has(id));
      if (missing.length > 0) throw new ConnectionNotFoundError(providerConfigKey, missing);
      for (const row of rows) {
        const next = merge ? { ...(row.metadata ?? {}), ...metadata } : metadata;
        this.checkMetadataSize(next);
        await this.connections.writeMetadata(manager, environmentId, row.id, next);
      }
      return rows;
    });
    // After the commit, so a read that starts now cannot cache the old metadata.
    for (const row of written) this.changes.announce('connection', row.id);
  }

  private async require(
    environmentId: number,
    providerConfigKey: string,
    connectionId: string,
  ): Promise<ConnectionRow> {
    const row = await this.connections.find(environmentId, providerConfigKey, connectionId);
    if (row) return row;
    await this.integrations.resolve(environmentId, providerConfigKey); // 404 naming the integration when that is what is missing
    throw new ConnectionNotFoundError(providerConfigKey, [connectionId]);
  }

  private checkMetadataSize(metadata: Record<string, unknown>): void {
    const size = Buffer.byteLength(JSON.stringify(metadata));
    if (size > this.config.credentials.metadataMaxBytes) {
      throw new DomainError(
        'metadata_too_large',
        `Metadata is ${size} bytes as JSON; the limit is ${this.config.credentials.metadataMaxBytes}`,
      );
    }
  }
}

function view(row: ConnectionRow): ConnectionView {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    provider_config_key: row.providerConfigKey,
    provider: row.provider,
    connection_id: row.connectionId,
    connection_config: row.connectionConfig,
    metadata: row.metadata,
  };
}

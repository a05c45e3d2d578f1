import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError } from '../common/errors/domain-error';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { SecretBox } from '../crypto/secret-box';
import type { ResolvedIntegration } from '../integrations/integrations.service';
import {
  ConnectionsRepository,
  REFUSAL_COOL_DOWN_SECONDS,
  type ConnectionRow,
} from './connections.repository';
import {
  CREDENTIALS_CONTEXT,
  needsRefresh,
  type OAuth2Credentials,
  type StoredCredentials,
} from './credentials';
import { OAuth2TokenClient, TokenRefreshError } from './oauth2-token-client';

const POLL_START_MS = 10;
const POLL_MAX_MS = 100;

export class RefreshRefusedError extends DomainError {
  constructor(message: string, providerStatus?: number, providerBody?: unknown) {
    super('refresh_token_external_error', message, undefined, {
      provider_status: providerStatus ?? null,
      provider_response: providerBody ?? null,
    });
  }
}

export interface FreshCredentials {
  readonly credentials: StoredCredentials;
  /** The row after any refresh (updated_at moves with a refresh). */
  readonly row: ConnectionRow;
}

/**
 * Hands out usable credentials, refreshing OAuth 2 tokens that expire within the provider's
 * buffer (or when forced). Concurrent refreshes of one connection collapse into one call to the
 * token endpoint: within a process by sharing one promise, across processes by a lease column
 * taken with one conditional UPDATE. Nothing is locked during the HTTP call; a crashed holder's
 * lease simply expires.
 */
@Injectable()
export class CredentialRefreshService {
  private readonly logger = new Logger('CredentialRefresh');
  private readonly inFlight = new Map<number, Promise<FreshCredentials>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsRepository,
    private readonly secrets: SecretBox,
    private readonly tokens: OAuth2TokenClient,
  ) {}

  async fresh(
    row: ConnectionRow,
    integration: ResolvedIntegration,
    forceRefresh: boolean,
  ): Promise<FreshCredentials> {
    const credentials = this.decrypt(row);
    const refreshable = credentials.type === 'OAUTH2' && credentials.refresh_token !== undefined;
    if (!refreshable || (!forceRefresh && !needsRefresh(credentials, integration.provider)))
      return { credentials, row };

    const pending = this.inFlight.get(row.id);
    if (pending) return pending;
    if (row.refusedRecently && row.lastRefreshError) {
      throw new RefreshRefusedError(
        `${row.lastRefreshError} (refused less than ${REFUSAL_COOL_DOWN_SECONDS} s ago; import new credentials or retry later)`,
      );
    }
    const work = this.refreshOnce(row, integration).finally(() => this.inFlight.delete(row.id));
    this.inFlight.set(row.id, work);
    return work;
  }

  private async refreshOnce(
    seen: ConnectionRow,
    integration: ResolvedIntegration,
  ): Promise<FreshCredentials> {
    const owner = randomUUID();
    const deadline = Date.now() + this.config.credentials.refreshLeaseMs + 2_000;
    let pollMs = POLL_START_MS;
    for (;;) {
      const leased = await this.connections.tryAcquireRefreshLease(
        seen.environmentId,
        seen.id,
        owner,
        this.config.credentials.refreshLeaseMs,
      );
      if (leased) {
        if (leased.credentialsVersion !== seen.credentialsVersion) {
          // Another process refreshed between our read and our lease: use its token.
          await this.connections.releaseRefreshLease(seen.environmentId, seen.id, owner);
          return { credentials: this.decrypt(leased), row: leased };
        }
        if (leased.lastRefreshFailureAt !== seen.lastRefreshFailureAt && leased.lastRefreshError) {
          // Another process was refused meanwhile: the same refresh token would be refused again.
          await this.connections.releaseRefreshLease(seen.environmentId, seen.id, owner);
          throw new RefreshRefusedError(leased.lastRefreshError);
        }
        return this.callProvider(leased, integration, owner);
      }
      await sleep(pollMs);
      pollMs = Math.min(pollMs * 2, POLL_MAX_MS);
      const current = await this.connections.findById(seen.environmentId, seen.id);
      if (!current)
        throw new DomainError(
          'connection_not_found',
          'The connection was deleted during the refresh',
        );
      if (current.credentialsVersion !== seen.credentialsVersion)
        return { credentials: this.decrypt(current), row: current };
      if (current.lastRefreshFailureAt !== seen.lastRefreshFailureAt && current.lastRefreshError) {
        throw new RefreshRefusedError(current.lastRefreshError);
      }
      if (Date.now() > deadline) {
        throw new DomainError(
          'dependency_unavailable',
          'Another process is still refreshing this connection; try again shortly',
        );
      }
    }
  }

  private async callProvider(
    row: ConnectionRow,
    integration: ResolvedIntegration,
    owner: string,
  ): Promise<FreshCredentials> {
    const current = this.decrypt(row) as OAuth2Credentials;
    let refreshed: OAuth2Credentials;
    try {
      refreshed = await this.tokens.refresh(integration, row.connectionConfig, current);
    } catch (error) {
      const refusal =
        error instanceof TokenRefreshError
          ? error
          : new TokenRefreshError(String(error), undefined, undefined);
      await this.connections.recordRefreshFailure(
        row.environmentId,
        row.id,
        owner,
        refusal.message,
      );
      this.logger.warn(
        { connection: row.id, providerStatus: refusal.providerStatus },
        refusal.message,
      );
      throw new RefreshRefusedError(refusal.message, refusal.providerStatus, refusal.providerBody);
    }
    const sealed = this.secrets.encryptJson(refreshed, CREDENTIALS_CONTEXT);
    const expiresAt = refreshed.expires_at ? new Date(refreshed.expires_at) : null;
    const stored = await this.connections.completeRefresh(
      row.environmentId,
      row.id,
      owner,
      sealed,
      expiresAt,
    );
    if (!stored) {
      // Our lease ran out during the call and someone else took over; theirs is the stored truth.
      this.logger.error(
        { connection: row.id },
        'Refresh lease lost before the new token could be stored',
      );
    }
    const latest = await this.connections.findById(row.environmentId, row.id);
    if (!latest)
      throw new DomainError(
        'connection_not_found',
        'The connection was deleted during the refresh',
      );
    return { credentials: this.decrypt(latest), row: latest };
  }

  /** The row's stored credentials, decrypted as they are (no refresh). */
  decrypt(row: ConnectionRow): StoredCredentials {
    return this.secrets.decryptJson<StoredCredentials>(row.credentials, CREDENTIALS_CONTEXT);
  }
}

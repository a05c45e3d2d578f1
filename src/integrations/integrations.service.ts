import { Injectable } from '@nestjs/common';
import { DomainError, InvalidRequestError } from '../common/errors/domain-error';
import type { FieldError } from '../common/errors/error-codes';
import { ENCRYPTION_CONTEXTS } from '../crypto/encryption-contexts';
import { SecretBox } from '../crypto/secret-box';
import { ProvidersService } from '../providers/providers.service';
import type { ProviderDefinition } from '../providers/provider.types';
import type { IntegrationBodyDto } from './dto/integration.dto';
import type { IntegrationEntity } from './entities/integration.entity';
import { IntegrationsRepository } from './integrations.repository';

export const CLIENT_SECRET_CONTEXT = ENCRYPTION_CONTEXTS.clientSecret;

export interface IntegrationView {
  readonly unique_key: string;
  readonly provider: string;
  readonly auth_mode: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly client_id?: string | null;
  readonly client_secret?: string | null;
  readonly scopes?: string | null;
}

/** An integration with what refresh and proxy need: its provider and decrypted client secret. */
export interface ResolvedIntegration {
  readonly entity: IntegrationEntity;
  readonly provider: ProviderDefinition;
  readonly clientId: string | null;
  /** Decrypted on demand: only a refresh or `include_creds` needs it. */
  clientSecret(): string | null;
}

function missingProvider(entity: IntegrationEntity): DomainError {
  return new DomainError(
    'unprocessable',
    `Integration "${entity.uniqueKey}" uses provider "${entity.provider}", which no longer exists`,
  );
}

export class IntegrationNotFoundError extends DomainError {
  constructor(key: string) {
    super('integration_not_found', `No integration "${key}" in this environment`);
  }
}

@Injectable()
export class IntegrationsService {
  private readonly resolvedByEntity = new WeakMap<IntegrationEntity, ResolvedIntegration>();

  constructor(
    private readonly integrations: IntegrationsRepository,
    private readonly providers: ProvidersService,
    private readonly secrets: SecretBox,
  ) {}

  async list(environmentId: number): Promise<Array<{ unique_key: string; provider: string }>> {
    const rows = await this.integrations.list(environmentId);
    return rows.map((row) => ({ unique_key: row.uniqueKey, provider: row.provider }));
  }

  async get(
    environmentId: number,
    key: string,
    includeCredentials: boolean,
  ): Promise<IntegrationView> {
    const resolved = await this.resolve(environmentId, key);
    return this.view(resolved, includeCredentials);
  }

  async create(environmentId: number, body: IntegrationBodyDto): Promise<IntegrationView> {
    const provider = await this.checkedProvider(environmentId, body);
    const created = await this.integrations.insert(environmentId, this.fields(body));
    if (!created) {
      throw new DomainError(
        'integration_already_exists',
        `Integration "${body.provider_config_key}" already exists; use PUT /config to change it`,
      );
    }
    return this.view(
      {
        entity: created,
        provider,
        clientId: created.oauthClientId,
        clientSecret: () => body.oauth_client_secret ?? null,
      },
      false,
    );
  }

  async update(environmentId: number, body: IntegrationBodyDto): Promise<IntegrationView> {
    const existing = await this.integrations.findByKey(environmentId, body.provider_config_key);
    if (!existing) throw new IntegrationNotFoundError(body.provider_config_key);
    await this.checkedProvider(environmentId, body);
    await this.integrations.update(environmentId, existing.id, this.fields(body));
    return this.get(environmentId, body.provider_config_key, false);
  }

  async delete(environmentId: number, key: string): Promise<void> {
    const existing = await this.integrations.findByKey(environmentId, key);
    if (!existing) throw new IntegrationNotFoundError(key);
    const connections = await this.integrations.countConnections(environmentId, existing.id);
    if (connections > 0) {
      throw new DomainError(
        'integration_in_use',
        `Integration "${key}" still has ${connections} connection(s); delete them first`,
      );
    }
    await this.integrations.delete(environmentId, existing.id);
  }

  async resolve(environmentId: number, key: string): Promise<ResolvedIntegration> {
    const entity = await this.integrations.findByKey(environmentId, key);
    if (!entity) throw new IntegrationNotFoundError(key);
    return this.resolveEntity(environmentId, entity);
  }

  async resolveEntity(
    environmentId: number,
    entity: IntegrationEntity,
  ): Promise<ResolvedIntegration> {
    const provider = await this.providers.find(environmentId, entity.provider);
    if (!provider) throw missingProvider(entity);
    return this.resolved(entity, provider);
  }

  /**
   * `resolveEntity` without waiting, when the environment's providers are in memory; undefined
   * when they must be read first.
   */
  resolveEntityCached(
    environmentId: number,
    entity: IntegrationEntity,
  ): ResolvedIntegration | undefined {
    const provider = this.providers.findCached(environmentId, entity.provider);
    if (provider === null) throw missingProvider(entity);
    return provider && this.resolved(entity, provider);
  }

  /** One resolved object per entity and provider, so a hot path allocates none. */
  private resolved(entity: IntegrationEntity, provider: ProviderDefinition): ResolvedIntegration {
    const known = this.resolvedByEntity.get(entity);
    if (known?.provider === provider) return known;
    const resolved: ResolvedIntegration = {
      entity,
      provider,
      clientId: entity.oauthClientId,
      clientSecret: () =>
        entity.oauthClientSecret
          ? this.secrets.decrypt(entity.oauthClientSecret, CLIENT_SECRET_CONTEXT)
          : null,
    };
    this.resolvedByEntity.set(entity, resolved);
    return resolved;
  }

  private async checkedProvider(
    environmentId: number,
    body: IntegrationBodyDto,
  ): Promise<ProviderDefinition> {
    const provider = await this.providers.find(environmentId, body.provider);
    if (!provider) {
      throw new DomainError(
        'unknown_provider',
        `Unknown provider "${body.provider}"; GET /providers lists them`,
        [{ path: 'provider', message: `unknown provider "${body.provider}"` }],
      );
    }
    const errors: FieldError[] = [];
    const oauth = provider.auth_mode === 'OAUTH2' || provider.auth_mode === 'OAUTH1';
    if (!oauth) {
      for (const field of ['oauth_client_id', 'oauth_client_secret', 'oauth_scopes'] as const) {
        if (body[field] !== undefined)
          errors.push({
            path: field,
            message: `${field} does not apply to ${provider.auth_mode} providers`,
          });
      }
    } else if ((body.oauth_client_id === undefined) !== (body.oauth_client_secret === undefined)) {
      errors.push({
        path: 'oauth_client_secret',
        message: 'oauth_client_id and oauth_client_secret go together',
      });
    }
    if (errors.length > 0) {
      throw new InvalidRequestError(
        `Invalid integration for provider "${provider.name}" (${provider.auth_mode})`,
        errors,
      );
    }
    return provider;
  }

  private fields(body: IntegrationBodyDto) {
    return {
      uniqueKey: body.provider_config_key,
      provider: body.provider,
      oauthClientId: body.oauth_client_id ?? null,
      oauthClientSecret: body.oauth_client_secret
        ? this.secrets.encrypt(body.oauth_client_secret, CLIENT_SECRET_CONTEXT)
        : null,
      oauthScopes: body.oauth_scopes ?? null,
    };
  }

  private view(resolved: ResolvedIntegration, includeCredentials: boolean): IntegrationView {
    const { entity, provider } = resolved;
    const base = {
      unique_key: entity.uniqueKey,
      provider: entity.provider,
      auth_mode: provider.auth_mode,
      created_at: entity.createdAt.toISOString(),
      updated_at: entity.updatedAt.toISOString(),
    };
    if (!includeCredentials) return base;
    return {
      ...base,
      client_id: resolved.clientId,
      client_secret: resolved.clientSecret(),
      scopes: entity.oauthScopes,
    };
  }
}

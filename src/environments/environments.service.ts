import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors/domain-error';
import { ENCRYPTION_CONTEXTS } from '../crypto/encryption-contexts';
import { SecretBox } from '../crypto/secret-box';
import {
  ENVIRONMENT_NAMES,
  type EnvironmentEntity,
  type EnvironmentName,
} from './entities/environment.entity';
import { EnvironmentsRepository } from './environments.repository';
import { generateSecretKey, generateWebhookSecret, hashSecretKey } from './secret-keys';

const WEBHOOK_SECRET_CONTEXT = ENCRYPTION_CONTEXTS.webhookSecret;

export interface EnvironmentView {
  readonly name: EnvironmentName;
  readonly webhook_url: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface CreatedKey {
  readonly environment: EnvironmentName;
  readonly secretKey: string;
  readonly generated: boolean;
}

/** Where an environment's webhooks go and the secret that signs them. */
export interface WebhookDestination {
  readonly url: string;
  readonly secret: string;
}

@Injectable()
export class EnvironmentsService {
  /**
   * Decrypted webhook secrets by environment, each with the sealed value it came from: a row
   * rotated (or re-encrypted) elsewhere no longer matches, so the cache is never stale.
   */
  private readonly openedWebhookSecrets = new Map<number, { sealed: string; secret: string }>();

  constructor(
    private readonly environments: EnvironmentsRepository,
    private readonly secrets: SecretBox,
  ) {}

  /**
   * Makes sure every environment exists. Returns the keys of environments this call created, so
   * the caller can show a generated key the one time it exists in clear.
   */
  async ensureEnvironments(
    initialKeys: Readonly<Partial<Record<EnvironmentName, string>>>,
  ): Promise<CreatedKey[]> {
    const created: CreatedKey[] = [];
    for (const name of ENVIRONMENT_NAMES) {
      const configured = initialKeys[name];
      const secretKey = configured ?? generateSecretKey(name);
      if (await this.environments.insertIfMissing(name, hashSecretKey(secretKey))) {
        created.push({ environment: name, secretKey, generated: configured === undefined });
      }
    }
    return created;
  }

  async rotateSecretKey(name: EnvironmentName): Promise<string> {
    const secretKey = generateSecretKey(name);
    if (!(await this.environments.updateKeyHash(name, hashSecretKey(secretKey)))) {
      throw new NotFoundError(`Environment ${name} does not exist; start the service once first`);
    }
    return secretKey;
  }

  async get(environmentId: number): Promise<EnvironmentView> {
    return toView(await this.require(environmentId));
  }

  async setWebhookUrl(environmentId: number, webhookUrl: string | null): Promise<EnvironmentView> {
    await this.environments.updateWebhookUrl(environmentId, webhookUrl);
    return this.get(environmentId);
  }

  /** Replaces the webhook secret; the returned value is the only time it is seen in clear. */
  async rotateWebhookSecret(environmentId: number): Promise<string> {
    const secret = generateWebhookSecret();
    const sealed = this.secrets.encrypt(secret, WEBHOOK_SECRET_CONTEXT);
    if (!(await this.environments.updateWebhookSecret(environmentId, sealed))) {
      throw new NotFoundError('Environment not found');
    }
    this.openedWebhookSecrets.set(environmentId, { sealed, secret });
    return secret;
  }

  /** Null when the environment has no webhook URL; creates the secret on first use. */
  async webhookDestination(environmentId: number): Promise<WebhookDestination | null> {
    const settings = await this.environments.findWebhookSettings(environmentId);
    if (!settings) throw new NotFoundError('Environment not found');
    if (!settings.webhookUrl) return null;
    const sealed = settings.webhookSecret ?? (await this.createWebhookSecret(environmentId));
    return { url: settings.webhookUrl, secret: this.openWebhookSecret(environmentId, sealed) };
  }

  private async createWebhookSecret(environmentId: number): Promise<string> {
    const candidate = this.secrets.encrypt(generateWebhookSecret(), WEBHOOK_SECRET_CONTEXT);
    await this.environments.insertWebhookSecretIfMissing(environmentId, candidate);
    // Another process may have stored its secret first; the stored one wins.
    const settings = await this.environments.findWebhookSettings(environmentId);
    if (!settings?.webhookSecret) throw new NotFoundError('Environment not found');
    return settings.webhookSecret;
  }

  private openWebhookSecret(environmentId: number, sealed: string): string {
    const cached = this.openedWebhookSecrets.get(environmentId);
    if (cached?.sealed === sealed) return cached.secret;
    const secret = this.secrets.decrypt(sealed, WEBHOOK_SECRET_CONTEXT);
    this.openedWebhookSecrets.set(environmentId, { sealed, secret });
    return secret;
  }

  private async require(environmentId: number): Promise<EnvironmentEntity> {
    const environment = await this.environments.findById(environmentId);
    if (!environment) throw new NotFoundError('Environment not found');
    return environment;
  }
}

function toView(environment: EnvironmentEntity): EnvironmentView {
  return {
    name: environment.name,
    webhook_url: environment.webhookUrl,
    created_at: environment.createdAt.toISOString(),
    updated_at: environment.updatedAt.toISOString(),
  };
}

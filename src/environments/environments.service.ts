import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors/domain-error';
import {
  ENVIRONMENT_NAMES,
  type EnvironmentEntity,
  type EnvironmentName,
} from './entities/environment.entity';
import { EnvironmentsRepository } from './environments.repository';
import { generateSecretKey, hashSecretKey } from './secret-keys';

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

@Injectable()
export class EnvironmentsService {
  constructor(private readonly environments: EnvironmentsRepository) {}

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

import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, type Repository } from 'typeorm';
import { EnvironmentEntity, type EnvironmentName } from './entities/environment.entity';

@Injectable()
export class EnvironmentsRepository {
  constructor(
    @InjectRepository(EnvironmentEntity)
    private readonly environments: Repository<EnvironmentEntity>,
  ) {}

  findIdByKeyHash(secretKeyHash: string): Promise<Pick<EnvironmentEntity, 'id' | 'name'> | null> {
    return this.environments.findOne({
      select: { id: true, name: true },
      where: { secretKeyHash },
    });
  }

  findById(environmentId: number): Promise<EnvironmentEntity | null> {
    return this.environments.findOneBy({ id: environmentId });
  }

  findByName(name: EnvironmentName): Promise<EnvironmentEntity | null> {
    return this.environments.findOneBy({ name });
  }

  /** Creates the environment unless it exists; true when this call created it. */
  async insertIfMissing(name: EnvironmentName, secretKeyHash: string): Promise<boolean> {
    const result = await this.environments
      .createQueryBuilder()
      .insert()
      .values({ name, secretKeyHash })
      .orIgnore()
      .returning('id')
      .execute();
    return result.raw.length > 0;
  }

  async updateWebhookUrl(environmentId: number, webhookUrl: string | null): Promise<void> {
    await this.environments.update({ id: environmentId }, { webhookUrl });
  }

  findWebhookSettings(
    environmentId: number,
  ): Promise<Pick<EnvironmentEntity, 'id' | 'webhookUrl' | 'webhookSecret'> | null> {
    return this.environments.findOne({
      // The id too: TypeORM builds no entity from a row whose selected columns are all null.
      select: { id: true, webhookUrl: true, webhookSecret: true },
      where: { id: environmentId },
    });
  }

  /** Replaces the sealed webhook secret; false when the environment does not exist. */
  async updateWebhookSecret(environmentId: number, sealedSecret: string): Promise<boolean> {
    const result = await this.environments.update(
      { id: environmentId },
      { webhookSecret: sealedSecret },
    );
    return (result.affected ?? 0) > 0;
  }

  /** Stores the sealed secret unless the environment has one, so concurrent first uses agree. */
  async insertWebhookSecretIfMissing(environmentId: number, sealedSecret: string): Promise<void> {
    await this.environments.update(
      { id: environmentId, webhookSecret: IsNull() },
      { webhookSecret: sealedSecret },
    );
  }

  async updateKeyHash(name: EnvironmentName, secretKeyHash: string): Promise<boolean> {
    const result = await this.environments.update({ name }, { secretKeyHash });
    return (result.affected ?? 0) > 0;
  }
}

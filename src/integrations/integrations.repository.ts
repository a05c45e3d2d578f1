import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { ChangeFeed } from '../database/change-feed';
import { IntegrationEntity } from './entities/integration.entity';

export type IntegrationFields = Pick<
  IntegrationEntity,
  'uniqueKey' | 'provider' | 'oauthClientId' | 'oauthClientSecret' | 'oauthScopes'
>;

@Injectable()
export class IntegrationsRepository {
  constructor(
    @InjectRepository(IntegrationEntity)
    private readonly integrations: Repository<IntegrationEntity>,
    private readonly changes: ChangeFeed,
  ) {}

  list(environmentId: number): Promise<IntegrationEntity[]> {
    return this.integrations.find({ where: { environmentId }, order: { uniqueKey: 'ASC' } });
  }

  findByKey(environmentId: number, uniqueKey: string): Promise<IntegrationEntity | null> {
    return this.integrations.findOneBy({ environmentId, uniqueKey });
  }

  findById(environmentId: number, id: number): Promise<IntegrationEntity | null> {
    return this.integrations.findOneBy({ environmentId, id });
  }

  /** Inserts unless the key exists; null when it does. */
  async insert(
    environmentId: number,
    fields: IntegrationFields,
  ): Promise<IntegrationEntity | null> {
    const result = await this.integrations
      .createQueryBuilder()
      .insert()
      .values({ environmentId, ...fields })
      .orIgnore()
      .returning('id')
      .execute();
    const id = (result.raw as Array<{ id: number }>)[0]?.id;
    return id === undefined ? null : this.findById(environmentId, id);
  }

  async update(environmentId: number, id: number, fields: IntegrationFields): Promise<void> {
    await this.integrations.update({ environmentId, id }, fields);
    this.changes.announce('integration', id);
  }

  async countConnections(environmentId: number, id: number): Promise<number> {
    const rows: Array<{ count: string }> = await this.integrations.query(
      'SELECT count(*) AS count FROM connections WHERE environment_id = $1 AND integration_id = $2',
      [environmentId, id],
    );
    return Number(rows[0]?.count ?? 0);
  }

  async delete(environmentId: number, id: number): Promise<void> {
    await this.integrations.delete({ environmentId, id });
    this.changes.announce('integration', id);
  }
}

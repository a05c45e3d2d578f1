import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { CustomProviderEntity } from './entities/custom-provider.entity';
import type { ProviderDefinition } from './provider.types';

@Injectable()
export class CustomProvidersRepository {
  constructor(
    @InjectRepository(CustomProviderEntity)
    private readonly providers: Repository<CustomProviderEntity>,
  ) {}

  async listDefinitions(environmentId: number): Promise<ProviderDefinition[]> {
    const rows = await this.providers.find({ where: { environmentId }, order: { name: 'ASC' } });
    return rows.map((row) => row.definition);
  }

  async upsert(environmentId: number, definition: ProviderDefinition): Promise<void> {
    await this.providers.upsert({ environmentId, name: definition.name, definition }, [
      'environmentId',
      'name',
    ]);
  }

  async delete(environmentId: number, name: string): Promise<boolean> {
    const result = await this.providers.delete({ environmentId, name });
    return (result.affected ?? 0) > 0;
  }
}

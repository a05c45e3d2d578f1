import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { EnvironmentVariableEntity } from './entities/environment-variable.entity';

@Injectable()
export class EnvironmentVariablesRepository {
  constructor(
    @InjectRepository(EnvironmentVariableEntity)
    private readonly variables: Repository<EnvironmentVariableEntity>,
  ) {}

  list(environmentId: number): Promise<EnvironmentVariableEntity[]> {
    return this.variables.find({ where: { environmentId }, order: { name: 'ASC' } });
  }

  /** Replaces the whole set in one transaction. */
  async replaceAll(
    environmentId: number,
    variables: ReadonlyArray<{ name: string; value: string }>,
  ): Promise<void> {
    await this.variables.manager.transaction(async (manager) => {
      await manager.delete(EnvironmentVariableEntity, { environmentId });
      if (variables.length > 0) {
        await manager.insert(
          EnvironmentVariableEntity,
          variables.map((variable) => ({ environmentId, ...variable })),
        );
      }
    });
  }
}

import { Injectable } from '@nestjs/common';
import { InvalidRequestError } from '../common/errors/domain-error';
import { ENCRYPTION_CONTEXTS } from '../crypto/encryption-contexts';
import { SecretBox } from '../crypto/secret-box';
import { EnvironmentVariablesRepository } from './environment-variables.repository';

const VALUE_CONTEXT = ENCRYPTION_CONTEXTS.environmentVariable;

export interface EnvironmentVariable {
  readonly name: string;
  readonly value: string;
}

@Injectable()
export class EnvironmentVariablesService {
  constructor(
    private readonly variables: EnvironmentVariablesRepository,
    private readonly secrets: SecretBox,
  ) {}

  async list(environmentId: number): Promise<EnvironmentVariable[]> {
    const rows = await this.variables.list(environmentId);
    return rows.map((row) => ({
      name: row.name,
      value: this.secrets.decrypt(row.value, VALUE_CONTEXT),
    }));
  }

  async replaceAll(
    environmentId: number,
    variables: readonly EnvironmentVariable[],
  ): Promise<EnvironmentVariable[]> {
    const seen = new Set<string>();
    const duplicates = variables.filter((variable) => seen.size === seen.add(variable.name).size);
    if (duplicates.length > 0) {
      throw new InvalidRequestError(
        `Each name may appear once: ${duplicates.map((variable) => variable.name).join(', ')}`,
        duplicates.map((variable) => ({
          path: 'variables',
          message: `duplicate name ${variable.name}`,
        })),
      );
    }
    await this.variables.replaceAll(
      environmentId,
      variables.map((variable) => ({
        name: variable.name,
        value: this.secrets.encrypt(variable.value, VALUE_CONTEXT),
      })),
    );
    return this.list(environmentId);
  }
}

import { ApplicationFailure } from '@temporalio/common';
import {
  ENVIRONMENT_NAMES,
  type EnvironmentName,
} from '../src/environments/entities/environment.entity';
import type { EnvironmentsRepository } from '../src/environments/environments.repository';

export interface EnvironmentActivityDependencies {
  readonly environments: EnvironmentsRepository;
}

export function createEnvironmentActivities({ environments }: EnvironmentActivityDependencies) {
  return {
    async describeEnvironment(name: string): Promise<{ environmentId: number; processId: number }> {
      if (!ENVIRONMENT_NAMES.includes(name as EnvironmentName)) {
        throw ApplicationFailure.nonRetryable(`Unknown environment ${name}`, 'not_found');
      }
      const environment = await environments.findByName(name as EnvironmentName);
      if (!environment)
        throw ApplicationFailure.nonRetryable(`Environment ${name} is missing`, 'not_found');
      return { environmentId: environment.id, processId: process.pid };
    },
  };
}

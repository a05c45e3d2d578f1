import {
  createEnvironmentActivities,
  type EnvironmentActivityDependencies,
} from './environment.activities';

/** Everything activities need, injected from the NestJS container by the worker. */
export type ActivityDependencies = EnvironmentActivityDependencies;

export function createActivities(dependencies: ActivityDependencies) {
  return {
    ...createEnvironmentActivities(dependencies),
  };
}

export type Activities = ReturnType<typeof createActivities>;

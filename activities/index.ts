import { type ActionActivityDependencies, createActionActivities } from './action.activities';
import {
  createEnvironmentActivities,
  type EnvironmentActivityDependencies,
} from './environment.activities';
import { createSyncActivities, type SyncActivityDependencies } from './sync.activities';
import { createWebhookActivities, type WebhookActivityDependencies } from './webhook.activities';

/** Everything activities need, injected from the NestJS container by the worker. */
export type ActivityDependencies = EnvironmentActivityDependencies &
  ActionActivityDependencies &
  SyncActivityDependencies &
  WebhookActivityDependencies;

export function createActivities(dependencies: ActivityDependencies) {
  return {
    ...createEnvironmentActivities(dependencies),
    ...createActionActivities(dependencies),
    ...createSyncActivities(dependencies),
    ...createWebhookActivities(dependencies),
  };
}

export type Activities = ReturnType<typeof createActivities>;

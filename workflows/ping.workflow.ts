import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';

export interface PingInput {
  readonly environment: string;
  readonly message: string;
}

export interface PingResult {
  readonly message: string;
  readonly environmentId: number;
  readonly workerProcessId: number;
}

const { describeEnvironment } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/** Proves the wiring end to end: API client, Temporal, a worker, an activity built from services. */
export async function pingWorkflow(input: PingInput): Promise<PingResult> {
  const described = await describeEnvironment(input.environment);
  return {
    message: input.message,
    environmentId: described.environmentId,
    workerProcessId: described.processId,
  };
}

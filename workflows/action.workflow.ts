import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ActionOutcome, ActionRunInput } from '../src/actions/action-outcome';

function messageOf(error: unknown): { message: string; timeout: boolean } {
  let current: unknown = error;
  let timeout = false;
  while (current && typeof current === 'object') {
    if ((current as { name?: unknown }).name === 'TimeoutFailure') timeout = true;
    if (!('cause' in current) || !current.cause) break;
    current = current.cause;
  }
  const message = (current as { message?: unknown } | undefined)?.message;
  return { message: typeof message === 'string' ? message : 'the action failed', timeout };
}

/** Actions whose timeout is at most this run as local activities. */
const LOCAL_ACTION_LIMIT_MS = 5 * 60_000;

/**
 * One action run, executed synchronously by the API: the script on a worker, its result (or
 * its failure, as a value) back to the caller. Attempts: 1 plus the definition's retries.
 */
export async function actionWorkflow(input: ActionRunInput): Promise<ActionOutcome> {
  const options = {
    // The script's own limit stops it first; this one covers a lost worker.
    startToCloseTimeout: input.timeoutMs + 5_000,
    retry: {
      initialInterval: '500 milliseconds',
      backoffCoefficient: 2,
      maximumAttempts: 1 + input.retries,
    },
  };
  // Short actions run as local activities: on the worker that runs the workflow task, without
  // the server round trips of scheduling an activity. Long ones are ordinary activities.
  const { runAction } =
    input.timeoutMs <= LOCAL_ACTION_LIMIT_MS
      ? proxyLocalActivities<Activities>(options)
      : proxyActivities<Activities>(options);
  try {
    return await runAction(input);
  } catch (error) {
    const { message, timeout } = messageOf(error);
    return timeout
      ? {
          ok: false,
          failure: 'timeout',
          message: `the action ran longer than ${input.timeoutMs} ms`,
        }
      : { ok: false, failure: 'script_error', message };
  }
}

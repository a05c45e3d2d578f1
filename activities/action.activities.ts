import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ActionOutcome, ActionRunInput } from '../src/actions/action-outcome';
import { ActionScriptError, type ActionRunnerService } from '../src/actions/action-runner.service';
import { ScriptFailure } from '../src/runtime/script-runner';

export interface ActionActivityDependencies {
  readonly actionRunner: ActionRunnerService;
}

export function createActionActivities({ actionRunner }: ActionActivityDependencies) {
  return {
    async runAction(input: ActionRunInput): Promise<ActionOutcome> {
      try {
        return await actionRunner.run(input, Context.current().cancellationSignal);
      } catch (error) {
        if (error instanceof ScriptFailure && error.reason === 'cancelled') {
          throw new CancelledFailure(error.message);
        }
        // Retried only when the definition asks for retries (the workflow's maximum attempts).
        if (error instanceof ActionScriptError) {
          throw ApplicationFailure.retryable(error.message, 'action_script_error');
        }
        throw error;
      }
    },
  };
}

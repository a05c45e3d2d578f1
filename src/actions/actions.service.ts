import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { AuthenticatedEnvironment } from '../auth/caller-environment.decorator';
import { DomainError, InvalidRequestError } from '../common/errors/domain-error';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { ConnectionsService } from '../connections/connections.service';
import type { ActionDefinitionJson } from '../scripts/script.types';
import { ScriptsService } from '../scripts/scripts.service';
import { actionSearchAttributes } from '../syncs/sync-identity';
import { TemporalClientService } from '../temporal/temporal-client.service';
import type { ActionOutcome, ActionRunInput } from './action-outcome';

export class ActionNotFoundError extends DomainError {
  constructor(providerConfigKey: string, name: string) {
    super(
      'action_not_found',
      `No action "${name}" deployed for integration "${providerConfigKey}"`,
    );
  }
}

/** An action that failed on purpose (ActionError): the envelope carries the script's payload. */
export class ActionFailureError extends DomainError {
  constructor(name: string, payload: unknown, status: number) {
    super('action_failure', `Action "${name}" failed`, undefined, payload, status);
  }
}

/** The API side of actions: one workflow per call, executed synchronously. */
@Injectable()
export class ActionsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsService,
    private readonly scripts: ScriptsService,
    private readonly temporal: TemporalClientService,
  ) {}

  async trigger(
    environment: AuthenticatedEnvironment,
    request: {
      providerConfigKey: string;
      connectionId: string;
      actionName: string;
      input: unknown;
    },
  ): Promise<unknown> {
    const connectionRowId = await this.connections.resolveId(
      environment.id,
      request.providerConfigKey,
      request.connectionId,
    );
    const script = await this.scripts.currentSummary(
      environment.id,
      request.providerConfigKey,
      'action',
      request.actionName,
    );
    if (!script) throw new ActionNotFoundError(request.providerConfigKey, request.actionName);
    const definition = script.definition as ActionDefinitionJson;
    const timeoutMs = Math.min(
      definition.timeout_ms ?? this.config.scripts.actionTimeoutMs,
      this.config.scripts.actionTimeoutMs,
    );
    const input: ActionRunInput = {
      connectionRowId,
      actionName: request.actionName,
      scriptId: script.scriptId,
      version: script.version,
      input: request.input ?? null,
      timeoutMs,
      retries: definition.retries,
    };
    const outcome = (await this.temporal.client.workflow.execute('actionWorkflow', {
      taskQueue: this.temporal.taskQueue,
      workflowId: [
        'action',
        this.temporal.taskQueue,
        environment.name,
        request.providerConfigKey,
        request.connectionId,
        request.actionName,
        randomUUID(),
      ].join(':'),
      args: [input],
      workflowExecutionTimeout: timeoutMs * (1 + definition.retries) + 60_000,
      typedSearchAttributes: actionSearchAttributes({
        environment: environment.name,
        integration: request.providerConfigKey,
        connection: request.connectionId,
        action: request.actionName,
      }),
    })) as ActionOutcome;
    if (outcome.ok) return outcome.output;
    switch (outcome.failure) {
      case 'action_error':
        throw new ActionFailureError(request.actionName, outcome.payload, outcome.status);
      case 'invalid_input':
        throw new InvalidRequestError(
          `The input does not match the input schema of action "${request.actionName}"`,
          outcome.issues,
        );
      case 'timeout':
        throw new DomainError(
          'action_timeout',
          `Action "${request.actionName}" timed out: ${outcome.message}`,
        );
      case 'script_error':
        // Unexpected: a 500 whose error id is in the log next to the script's message.
        throw new Error(`Action "${request.actionName}" failed unexpectedly: ${outcome.message}`);
    }
  }
}

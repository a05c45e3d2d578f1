import { Injectable } from '@nestjs/common';
import {
  defineSearchAttributeKey,
  SearchAttributeType,
  TypedSearchAttributes,
} from '@temporalio/common';
import { DomainError } from '../common/errors/domain-error';
import { ConnectionNotFoundError } from '../connections/connections.service';
import type { AuthenticatedEnvironment } from '../auth/caller-environment.decorator';
import { IntegrationNotFoundError } from '../integrations/integrations.service';
import { ScriptsService } from '../scripts/scripts.service';
import { SEARCH_ATTRIBUTES } from '../temporal/search-attributes';
import { TemporalClientService } from '../temporal/temporal-client.service';
import type { SyncRun } from './sync-runs.repository';
import { SyncRunsRepository } from './sync-runs.repository';

export class SyncNotFoundError extends DomainError {
  constructor(providerConfigKey: string, names: readonly string[]) {
    super(
      'sync_not_found',
      `No sync ${names.map((name) => `"${name}"`).join(', ')} deployed for integration "${providerConfigKey}"`,
    );
  }
}

const KEYS = {
  environment: defineSearchAttributeKey(SEARCH_ATTRIBUTES.environment, SearchAttributeType.KEYWORD),
  integration: defineSearchAttributeKey(SEARCH_ATTRIBUTES.integration, SearchAttributeType.KEYWORD),
  connection: defineSearchAttributeKey(SEARCH_ATTRIBUTES.connection, SearchAttributeType.KEYWORD),
  sync: defineSearchAttributeKey(SEARCH_ATTRIBUTES.sync, SearchAttributeType.KEYWORD),
};

/** The search attributes that let an operator find a connection's runs in the Temporal UI. */
export function runSearchAttributes(values: {
  environment: string;
  integration: string;
  connection: string;
  sync: string;
}): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: KEYS.environment, value: values.environment },
    { key: KEYS.integration, value: values.integration },
    { key: KEYS.connection, value: values.connection },
    { key: KEYS.sync, value: values.sync },
  ]);
}

export interface TriggeredRun {
  readonly connection_id: string;
  readonly sync: string;
  readonly workflow_id: string;
}

export interface SyncRunView {
  readonly id: string;
  readonly sync: string;
  readonly type: SyncRun['type'];
  readonly status: SyncRun['status'];
  readonly started_at: string;
  readonly finished_at: string | null;
  readonly results: SyncRun['results'];
  readonly error: SyncRun['error'];
  readonly attempts: number;
  readonly script_version: number;
  readonly workflow_id: string;
}

/** The API side of syncs: start runs on the workers and read their history. */
@Injectable()
export class SyncsService {
  constructor(
    private readonly runs: SyncRunsRepository,
    private readonly scripts: ScriptsService,
    private readonly temporal: TemporalClientService,
  ) {}

  /** Starts an immediate run of the named syncs (all when empty) for one or every connection. */
  async trigger(
    environment: AuthenticatedEnvironment,
    request: { providerConfigKey: string; syncs: readonly string[]; connectionId?: string },
  ): Promise<TriggeredRun[]> {
    const connections = await this.connections(
      environment.id,
      request.providerConfigKey,
      request.connectionId,
    );
    const names = await this.syncNames(environment.id, request.providerConfigKey, request.syncs);
    const triggered: TriggeredRun[] = [];
    for (const connection of connections) {
      for (const sync of names) {
        const workflowId = `sync-run:${environment.name}:${request.providerConfigKey}:${connection.connectionId}:${sync}:${Date.now().toString(36)}`;
        await this.temporal.client.workflow.start('syncRunWorkflow', {
          taskQueue: this.temporal.taskQueue,
          workflowId,
          args: [{ connectionRowId: connection.connectionRowId, syncName: sync }],
          typedSearchAttributes: runSearchAttributes({
            environment: environment.name,
            integration: request.providerConfigKey,
            connection: connection.connectionId,
            sync,
          }),
        });
        triggered.push({ connection_id: connection.connectionId, sync, workflow_id: workflowId });
      }
    }
    return triggered;
  }

  async listRuns(
    environmentId: number,
    request: { providerConfigKey: string; connectionId: string; sync?: string; limit: number },
  ): Promise<SyncRunView[]> {
    const [connection] = await this.connections(
      environmentId,
      request.providerConfigKey,
      request.connectionId,
    );
    if (!connection)
      throw new ConnectionNotFoundError(request.providerConfigKey, [request.connectionId]);
    const runs = await this.runs.list(connection.connectionRowId, request.sync, request.limit);
    return runs.map((run) => ({
      id: run.id,
      sync: run.syncName,
      type: run.type,
      status: run.status,
      started_at: run.startedAt.toISOString(),
      finished_at: run.finishedAt?.toISOString() ?? null,
      results: run.results,
      error: run.error,
      attempts: run.attempts,
      script_version: run.scriptVersion,
      workflow_id: run.workflowId,
    }));
  }

  private async connections(
    environmentId: number,
    providerConfigKey: string,
    connectionId?: string,
  ) {
    const connections = await this.runs.connectionsOf(
      environmentId,
      providerConfigKey,
      connectionId,
    );
    if (connections === null) throw new IntegrationNotFoundError(providerConfigKey);
    if (connectionId !== undefined && connections.length === 0) {
      throw new ConnectionNotFoundError(providerConfigKey, [connectionId]);
    }
    return connections;
  }

  private async syncNames(
    environmentId: number,
    providerConfigKey: string,
    requested: readonly string[],
  ): Promise<string[]> {
    const deployed = (
      await this.scripts.list(environmentId, { providerConfigKey, kind: 'sync' })
    ).map((script) => script.name);
    if (requested.length === 0) return deployed;
    const unknown = requested.filter((name) => !deployed.includes(name));
    if (unknown.length > 0) throw new SyncNotFoundError(providerConfigKey, unknown);
    return [...new Set(requested)];
  }
}

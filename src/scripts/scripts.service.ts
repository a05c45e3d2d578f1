import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError, InvalidRequestError } from '../common/errors/domain-error';
import type { FieldError } from '../common/errors/error-codes';
import { MAX_BUNDLE_BYTES, parseDefinitionJson } from './definition-schema';
import { scriptHash } from './script-hash';
import type { DeployedScript, ScriptDefinitionJson, ScriptKind } from './script.types';
import {
  type ScriptFilter,
  type ScriptHead,
  ScriptsRepository,
  type ScriptSummary,
} from './scripts.repository';

/** One script of a deploy, as the CLI uploads it; the definition is validated here. */
export interface DeployScriptInput {
  readonly kind: ScriptKind;
  readonly name: string;
  readonly integration: string;
  readonly definition: unknown;
  readonly bundle: string;
}

/** The complete set of scripts of an environment. */
export interface DeployRequest {
  readonly scripts: readonly DeployScriptInput[];
  /** Scripts stored but absent from `scripts` are deleted only with this set. */
  readonly allowRemovals?: boolean;
}

export interface DeployedScriptRef {
  readonly integration: string;
  readonly kind: ScriptKind;
  readonly name: string;
  /** The current version; for a removal, the version that was removed. */
  readonly version: number;
}

/** What changed, so later code (schedules, workers) can react to it. */
export interface DeployResult {
  readonly created: DeployedScriptRef[];
  readonly updated: DeployedScriptRef[];
  readonly unchanged: DeployedScriptRef[];
  readonly removed: DeployedScriptRef[];
}

interface CheckedScript {
  readonly kind: ScriptKind;
  readonly name: string;
  readonly integration: string;
  readonly definition: ScriptDefinitionJson;
  readonly bundle: string;
  readonly hash: string;
}

const identity = (integration: string, kind: ScriptKind, name: string): string =>
  JSON.stringify([integration, kind, name]);

const describe = (ref: DeployedScriptRef): string =>
  `${ref.kind} "${ref.name}" of "${ref.integration}"`;

/** Called after a deploy committed (schedules follow the deployed syncs). */
export type DeployListener = (environmentId: number, result: DeployResult) => Promise<void>;

@Injectable()
export class ScriptsService {
  private readonly logger = new Logger('Scripts');
  private readonly deployListeners: DeployListener[] = [];

  constructor(private readonly scripts: ScriptsRepository) {}

  onDeployed(listener: DeployListener): void {
    this.deployListeners.push(listener);
  }

  current(
    environmentId: number,
    providerConfigKey: string,
    kind: ScriptKind,
    name: string,
  ): Promise<DeployedScript | null> {
    return this.scripts.findCurrent(environmentId, providerConfigKey, kind, name);
  }

  /** The current version without its bundle. */
  currentSummary(
    environmentId: number,
    providerConfigKey: string,
    kind: ScriptKind,
    name: string,
  ): Promise<ScriptSummary | null> {
    return this.scripts.findCurrentSummary(environmentId, providerConfigKey, kind, name);
  }

  version(scriptId: number, version: number): Promise<DeployedScript | null> {
    return this.scripts.findVersion(scriptId, version);
  }

  list(environmentId: number, filter: ScriptFilter = {}): Promise<DeployedScript[]> {
    return this.scripts.list(environmentId, filter);
  }

  /** The current versions without bundles, for the API's listing. */
  summaries(environmentId: number, filter: ScriptFilter = {}): Promise<ScriptSummary[]> {
    return this.scripts.listSummaries(environmentId, filter);
  }

  /**
   * Makes the environment's scripts the given set, in one transaction: new scripts get version 1,
   * changed ones (by hash) a new version, unchanged ones nothing. Stored scripts missing from the
   * set are deleted only with `allowRemovals`; otherwise nothing changes and the error lists them.
   */
  async deploy(environmentId: number, request: DeployRequest): Promise<DeployResult> {
    const result = await this.store(environmentId, request);
    for (const listener of this.deployListeners) {
      await listener(environmentId, result).catch((error: unknown) => {
        this.logger.warn({ err: error }, 'A deploy listener failed; the reconciler will catch up');
      });
    }
    return result;
  }

  private store(environmentId: number, request: DeployRequest): Promise<DeployResult> {
    const scripts = checkScripts(request.scripts);
    return this.scripts.transaction(async (manager) => {
      await this.scripts.lockEnvironment(manager, environmentId);
      const integrationIds = await this.integrationIds(manager, environmentId, scripts);
      const heads = await this.scripts.lockHeads(manager, environmentId);
      const wanted = new Set(scripts.map((s) => identity(s.integration, s.kind, s.name)));
      const removedHeads = heads.filter(
        (head) => !wanted.has(identity(head.providerConfigKey, head.kind, head.name)),
      );
      const removed = removedHeads.map(refOf);
      if (removed.length > 0 && request.allowRemovals !== true) {
        throw new DomainError(
          'confirmation_required',
          `This deploy would remove ${removed.map(describe).join(', ')}; ` +
            'send allow_removals: true to confirm',
          undefined,
          { removed },
        );
      }
      const result: DeployResult = { created: [], updated: [], unchanged: [], removed };
      const headsByIdentity = new Map(
        heads.map((head) => [identity(head.providerConfigKey, head.kind, head.name), head]),
      );
      for (const script of scripts) {
        const head = headsByIdentity.get(identity(script.integration, script.kind, script.name));
        const integrationId = integrationIds.get(script.integration);
        if (integrationId === undefined) throw new Error('Integration checked above is missing');
        await this.apply(manager, environmentId, integrationId, script, head, result);
      }
      if (removedHeads.length > 0) {
        const ids = removedHeads.map((head) => head.id);
        await this.scripts.deleteScripts(manager, environmentId, ids);
      }
      return result;
    });
  }

  private async apply(
    manager: EntityManager,
    environmentId: number,
    integrationId: number,
    script: CheckedScript,
    head: ScriptHead | undefined,
    result: DeployResult,
  ): Promise<void> {
    const ref = { integration: script.integration, kind: script.kind, name: script.name };
    if (!head) {
      const id = await this.scripts.insertScript(
        manager,
        environmentId,
        integrationId,
        script.kind,
        script.name,
      );
      await this.scripts.insertVersion(manager, id, 1, script);
      result.created.push({ ...ref, version: 1 });
    } else if (head.hash === script.hash) {
      result.unchanged.push({ ...ref, version: head.version });
    } else {
      const version = head.version + 1;
      await this.scripts.insertVersion(manager, head.id, version, script);
      await this.scripts.moveVersion(manager, environmentId, head.id, version);
      result.updated.push({ ...ref, version });
    }
  }

  private async integrationIds(
    manager: EntityManager,
    environmentId: number,
    scripts: readonly CheckedScript[],
  ): Promise<Map<string, number>> {
    const keys = [...new Set(scripts.map((script) => script.integration))];
    const ids = await this.scripts.lockIntegrations(manager, environmentId, keys);
    const errors: FieldError[] = [];
    scripts.forEach((script, index) => {
      if (!ids.has(script.integration)) {
        errors.push({
          path: `scripts.${index}.integration`,
          message: `no integration "${script.integration}" in this environment`,
        });
      }
    });
    if (errors.length > 0) {
      const missing = keys.filter((key) => !ids.has(key));
      throw new DomainError(
        'unknown_integration',
        `Unknown integration(s) ${missing.map((key) => `"${key}"`).join(', ')}; ` +
          'create them with POST /config before deploying their scripts',
        errors,
      );
    }
    return ids;
  }
}

function refOf(head: ScriptHead): DeployedScriptRef {
  return {
    integration: head.providerConfigKey,
    kind: head.kind,
    name: head.name,
    version: head.version,
  };
}

/** Validates every script of a deploy; one error lists every problem. */
function checkScripts(inputs: readonly DeployScriptInput[]): CheckedScript[] {
  const errors: FieldError[] = [];
  const checked: CheckedScript[] = [];
  const seen = new Map<string, number>();
  inputs.forEach((input, index) => {
    const at = (path: string): string => `scripts.${index}${path ? `.${path}` : ''}`;
    const parsed = parseDefinitionJson(input.kind, input.definition);
    for (const problem of parsed.problems) {
      errors.push({
        path: at(`definition${problem.path ? `.${problem.path}` : ''}`),
        message: problem.message,
      });
    }
    if (Buffer.byteLength(input.bundle, 'utf8') > MAX_BUNDLE_BYTES) {
      errors.push({ path: at('bundle'), message: `must be at most ${MAX_BUNDLE_BYTES} bytes` });
    }
    // PostgreSQL text and jsonb cannot hold NUL characters.
    if (input.bundle.includes('\u0000')) {
      errors.push({ path: at('bundle'), message: 'must not contain NUL characters' });
    }
    if ((JSON.stringify(input.definition) ?? '').includes('\\u0000')) {
      errors.push({ path: at('definition'), message: 'must not contain NUL characters' });
    }
    const key = identity(input.integration, input.kind, input.name);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      errors.push({
        path: at('name'),
        message: `${input.kind} "${input.name}" of "${input.integration}" is also scripts.${earlier}`,
      });
    }
    seen.set(key, index);
    if (!('definition' in parsed)) return;
    const { definition } = parsed;
    for (const field of ['name', 'integration'] as const) {
      if (definition[field] !== input[field]) {
        errors.push({
          path: at(`definition.${field}`),
          message: `must equal the script's ${field} "${input[field]}"`,
        });
      }
    }
    checked.push({ ...input, definition, hash: scriptHash(definition, input.bundle) });
  });
  if (errors.length > 0) {
    throw new InvalidRequestError(
      `Invalid deploy: ${errors.map((error) => `${error.path} ${error.message}`).join('; ')}`,
      errors,
    );
  }
  return checked;
}

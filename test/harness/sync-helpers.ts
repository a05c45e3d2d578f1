import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleScript } from '../../src/cli/bundle';

/** The repository's example scripts. */
export const EXAMPLES = join(__dirname, '..', '..', 'integrations');
/** The SDK, for scripts the tests write to temporary files. */
export const SDK_PATH = join(__dirname, '..', '..', 'src', 'scripts', 'sdk');

export interface ApiCaller {
  <T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

/** A small JSON caller for routes the test drives directly. */
export function apiCaller(url: string, key: string): ApiCaller {
  return async <T>(method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
}

/** Bundles script files and deploys them as the environment's complete set. */
export async function deployScripts(
  api: ApiCaller,
  files: readonly string[],
  allowRemovals = false,
): Promise<unknown> {
  const scripts = [];
  for (const file of files) {
    const { bundle, definition } = await bundleScript(file);
    scripts.push({
      kind: definition.kind,
      name: definition.name,
      integration: definition.integration,
      definition,
      bundle,
    });
  }
  const response = await api('POST', '/scripts/deploy', { scripts, allow_removals: allowRemovals });
  if (response.status !== 200) {
    throw new Error(`deploy answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return response.body;
}

export interface RunView {
  id: string;
  sync: string;
  type: 'INITIAL' | 'INCREMENTAL';
  status: 'RUNNING' | 'SUCCESS' | 'ERROR' | 'CANCELLED';
  started_at: string;
  finished_at: string | null;
  results: Record<string, { added: number; updated: number; deleted: number }>;
  error: { message: string; reason?: string } | null;
  attempts: number;
  workflow_id: string;
}

/** Triggers one sync for one connection and waits for that run to finish. */
export async function runSync(
  api: ApiCaller,
  providerConfigKey: string,
  connectionId: string,
  sync: string,
  timeoutMs = 60_000,
): Promise<RunView> {
  const triggered = await api<{ runs: { workflow_id: string }[] }>('POST', '/sync/trigger', {
    provider_config_key: providerConfigKey,
    connection_id: connectionId,
    syncs: [sync],
  });
  if (triggered.status !== 200) {
    throw new Error(`trigger answered ${triggered.status}: ${JSON.stringify(triggered.body)}`);
  }
  const workflowId = triggered.body.runs[0]?.workflow_id;
  return waitForRun(api, providerConfigKey, connectionId, sync, workflowId, timeoutMs);
}

export async function waitForRun(
  api: ApiCaller,
  providerConfigKey: string,
  connectionId: string,
  sync: string,
  workflowId: string | undefined,
  timeoutMs = 60_000,
): Promise<RunView> {
  const deadline = Date.now() + timeoutMs;
  const query = `provider_config_key=${encodeURIComponent(providerConfigKey)}&connection_id=${encodeURIComponent(connectionId)}&sync=${encodeURIComponent(sync)}`;
  for (;;) {
    const { body } = await api<{ runs: RunView[] }>('GET', `/sync/runs?${query}`);
    const run = body.runs.find((candidate) => candidate.workflow_id === workflowId);
    if (run && run.status !== 'RUNNING') return run;
    if (Date.now() > deadline) {
      throw new Error(
        `run ${workflowId} did not finish in ${timeoutMs} ms: ${JSON.stringify(run)}`,
      );
    }
    await sleep(200);
  }
}

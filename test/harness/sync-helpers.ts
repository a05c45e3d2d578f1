import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleScript } from '../../src/cli/bundle';
import type { Junction } from '../../src/client';

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

function runsPath(providerConfigKey: string, connectionId: string, sync: string): string {
  return `/sync/runs?provider_config_key=${encodeURIComponent(providerConfigKey)}&connection_id=${encodeURIComponent(connectionId)}&sync=${encodeURIComponent(sync)}&limit=100`;
}

/** The runs of one connection's sync, newest first. */
export async function listRuns(
  api: ApiCaller,
  providerConfigKey: string,
  connectionId: string,
  sync: string,
): Promise<RunView[]> {
  const { status, body } = await api<{ runs: RunView[] }>(
    'GET',
    runsPath(providerConfigKey, connectionId, sync),
  );
  if (status !== 200) throw new Error(`GET /sync/runs answered ${status}`);
  return body.runs;
}

/** Waits until a run newer than `afterId` has finished (and none is running), and returns it. */
export async function waitForRun(
  api: ApiCaller,
  providerConfigKey: string,
  connectionId: string,
  sync: string,
  afterId = 0,
  timeoutMs = 60_000,
): Promise<RunView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await listRuns(api, providerConfigKey, connectionId, sync);
    const newer = runs.filter((run) => Number(run.id) > afterId);
    const oldestNewer = newer[newer.length - 1];
    if (oldestNewer && oldestNewer.status !== 'RUNNING') return oldestNewer;
    if (Date.now() > deadline) {
      throw new Error(
        `no run after ${afterId} finished in ${timeoutMs} ms: ${JSON.stringify(runs[0])}`,
      );
    }
    await sleep(200);
  }
}

/** Waits until no run of the sync is in progress; resolves with the newest run id (0: none). */
export async function waitForIdle(
  api: ApiCaller,
  providerConfigKey: string,
  connectionId: string,
  sync: string,
  timeoutMs = 60_000,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await listRuns(api, providerConfigKey, connectionId, sync);
    if (!runs.some((run) => run.status === 'RUNNING')) return Number(runs[0]?.id ?? 0);
    if (Date.now() > deadline) throw new Error(`${sync} is still running after ${timeoutMs} ms`);
    await sleep(200);
  }
}

/** Triggers one sync for one connection (when idle) and waits for that run to finish. */
export async function runSync(
  api: ApiCaller,
  providerConfigKey: string,
  connectionId: string,
  sync: string,
  timeoutMs = 60_000,
): Promise<RunView> {
  const before = await waitForIdle(api, providerConfigKey, connectionId, sync, timeoutMs);
  const triggered = await api('POST', '/sync/trigger', {
    provider_config_key: providerConfigKey,
    connection_id: connectionId,
    syncs: [sync],
  });
  if (triggered.status !== 200) {
    throw new Error(`trigger answered ${triggered.status}: ${JSON.stringify(triggered.body)}`);
  }
  return waitForRun(api, providerConfigKey, connectionId, sync, before, timeoutMs);
}

/** An OAuth 2 custom provider whose API is a local fake at `baseUrl`, and an integration of it. */
export async function fakeOAuth2Integration(
  client: Junction,
  provider: string,
  baseUrl: string,
  providerConfigKey: string,
): Promise<void> {
  await client.putProvider(provider, {
    display_name: `${provider} (fake)`,
    auth_mode: 'OAUTH2',
    authorization_url: `${baseUrl}/authorize`,
    token_url: `${baseUrl}/token`,
    proxy: { base_url: baseUrl },
    docs: 'https://example.com/docs',
  });
  await client.createIntegration({
    provider,
    provider_config_key: providerConfigKey,
    oauth_client_id: 'id',
    oauth_client_secret: 'secret',
  });
}

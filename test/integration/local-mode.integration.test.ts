import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Junction } from '../../src/client';
import {
  startJunctionProcess,
  runJunctionCommand,
  type JunctionProcess,
} from '../harness/junction-process';
import { freePort } from '../harness/ports';

describe('local mode with embedded defaults', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'junction-local-'));
  let env: Record<string, string>;
  let service: JunctionProcess | undefined;

  beforeAll(async () => {
    env = {
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      TEMPORAL_DEV_PORT: String(await freePort()),
      TEMPORAL_DEV_UI_PORT: String(await freePort()),
      TEMPORAL_TASK_QUEUE: `local-${process.pid}`,
      ...(process.env.TEMPORAL_CLI_PATH
        ? { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH }
        : {}),
    };
  });
  afterAll(async () => {
    await service?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const devKey = (): string => readFileSync(join(dataDir, 'dev-secret-key'), 'utf8').trim();
  const start = async (): Promise<{ api: string; client: (key: string) => Junction }> => {
    service = await startJunctionProcess('local', env);
    const api = service.banner('API') ?? '';
    return { api, client: (key) => new Junction({ secretKey: key, host: api }) };
  };
  const stop = async (): Promise<void> => {
    expect(await service?.stop('SIGTERM')).toBe(0);
    service = undefined;
  };

  it('starts PGlite and a Temporal dev server under the data folder, and keeps data across restarts', async () => {
    const first = await start();
    expect((await fetch(`${first.api}/ready`)).status).toBe(200);
    const ui = service?.banner('Temporal UI') ?? '';
    expect((await fetch(ui)).status).toBe(200);
    expect(service?.banner('API docs')).toBe(`${first.api}/docs`);
    expect(service?.banner('Dev secret key')).toBe(`cat ${join(dataDir, 'dev-secret-key')}`);
    expect(service?.output()).toMatch(/New prod secret key \(shown once\): jct_prod_/);
    expect(statSync(join(dataDir, 'dev-secret-key')).mode & 0o777).toBe(0o600);

    await first
      .client(devKey())
      .updateEnvironment({ webhook_url: 'http://127.0.0.1:9/kept-across-restarts' });
    // Embedded PostgreSQL serves the prepared-statement reads and the encrypted credentials too.
    const client = first.client(devKey());
    await client.createIntegration({ provider: 'stripe', provider_config_key: 'stripe' });
    await client.importConnection({
      provider_config_key: 'stripe',
      connection_id: 'c',
      api_key: 'sk_local',
    });
    for (let round = 0; round < 3; round += 1) {
      expect((await client.getConnection('stripe', 'c')).credentials).toEqual({
        type: 'API_KEY',
        apiKey: 'sk_local',
      });
    }
    await stop();

    const second = await start();
    expect(service?.output()).not.toMatch(/shown once/);
    expect((await second.client(devKey()).getEnvironment()).webhook_url).toBe(
      'http://127.0.0.1:9/kept-across-restarts',
    );
    expect((await second.client(devKey()).getConnection('stripe', 'c')).credentials).toMatchObject({
      apiKey: 'sk_local',
    });
    await stop();
  });

  it('keeps operator commands off the data folder while the service runs, and rotates the dev key', async () => {
    await start();
    const refused = runJunctionCommand(['keys', 'rotate', 'dev'], env);
    expect(refused.status).toBe(1);
    expect(refused.output).toMatch(/in use by process/);
    await stop();

    const oldKey = devKey();
    const rotated = runJunctionCommand(['keys', 'rotate', 'dev'], env);
    expect(rotated.status).toBe(0);
    const newKey = devKey();
    expect(newKey).not.toBe(oldKey);
    expect(rotated.output).toContain(newKey);

    const running = await start();
    await expect(running.client(oldKey).getEnvironment()).rejects.toMatchObject({ status: 401 });
    expect((await running.client(newKey).getEnvironment()).name).toBe('dev');
    await stop();
  });
});

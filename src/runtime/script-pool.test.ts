import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bundleScript } from '../cli/bundle';
import { ScriptPool } from './script-pool';
import type { ScriptHost } from './script-runner';

/** Runs the built script thread (dist), like every test that runs scripts. */
describe('ScriptPool', () => {
  let bundle: string;
  const host = {
    log: () => undefined,
    proxy: () => Promise.reject(new Error('no HTTP here')),
    getConnection: () => Promise.reject(new Error('no connection here')),
    getMetadata: () => Promise.resolve({}),
    getEnvironmentVariables: () => Promise.resolve([]),
  } as unknown as ScriptHost;
  const echo = (pool: ScriptPool, key: string, n: number) =>
    pool.run({
      key,
      bundle,
      kind: 'action',
      input: { n, text: 'hello' },
      info: {
        name: 'echo',
        connectionId: 'c',
        providerConfigKey: 'latency',
        environment: 'dev',
        dryRun: false,
        lastSyncDate: null,
      },
      timeoutMs: 10_000,
      memoryLimitMb: 64,
      host,
    });

  beforeAll(async () => {
    bundle = (await bundleScript(join(__dirname, '..', '..', 'bench', 'scripts', 'echo.ts')))
      .bundle;
  });

  it('stops threads idle longer than its idle time, down to the number it keeps', async () => {
    const pool = new ScriptPool(4, 64, { idleMs: 500, keepIdle: 1 });
    try {
      await Promise.all([echo(pool, 'v1', 1), echo(pool, 'v1', 2), echo(pool, 'v1', 3)]);
      expect(pool.threadCount).toBe(3);
      await sleep(2_500);
      expect(pool.threadCount).toBe(1);
      await expect(echo(pool, 'v1', 4)).resolves.toEqual({ n: 4, text: 'hello' });
    } finally {
      await pool.close();
    }
  });

  it('replaces a thread that was sent more bundles than it may keep, and goes on running', async () => {
    const pool = new ScriptPool(1, 64, { maxBundles: 2 });
    try {
      for (const [index, key] of ['v1', 'v2', 'v3', 'v4', 'v1'].entries()) {
        await expect(echo(pool, key, index)).resolves.toEqual({ n: index, text: 'hello' });
        expect(pool.threadCount).toBeLessThanOrEqual(1);
      }
      expect(pool.threadCount).toBe(1);
    } finally {
      await pool.close();
    }
  });
});

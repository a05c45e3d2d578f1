import { randomBytes } from 'node:crypto';
import { Junction } from '../../src/client';
import { generateEncryptionKey } from '../../src/crypto/secret-box';
import { loadConfig, type AppConfig } from '../../src/config/app-config';
import type { RunMode } from '../../src/config/config.schema';
import { startService, type RunningService } from '../../src/app/service';
import { createTestDatabase, type TestDatabase } from './databases';
import { startJunctionProcess, type JunctionProcess } from './junction-process';
import { freePort } from './ports';
import { harnessValue } from './state';

export interface TestApp {
  readonly url: string;
  readonly config: AppConfig;
  readonly database: TestDatabase;
  readonly service: RunningService;
  readonly devKey: string;
  readonly prodKey: string;
  readonly taskQueue: string;
  client(key?: string): Junction;
  stop(): Promise<void>;
}

/** One fixed key for the run, so API processes a test starts beside each other agree. */
export const TEST_ENCRYPTION_KEYS = generateEncryptionKey('test1');

export function randomKey(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString('base64url')}`;
}

export interface TestAppOptions {
  readonly mode?: RunMode;
  readonly env?: Readonly<Record<string, string>>;
  readonly database?: TestDatabase;
  /** Keys of an earlier app on the same database (environments keep their first keys). */
  readonly keys?: { readonly devKey: string; readonly prodKey: string };
}

/** The real service (api mode unless told) on a fresh database, a random port and its own task queue. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const devKey = options.keys?.devKey ?? randomKey('test_dev');
  const prodKey = options.keys?.prodKey ?? randomKey('test_prod');
  const taskQueue = `test-${randomBytes(4).toString('hex')}`;
  const config = loadConfig(options.mode ?? 'api', {
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: harnessValue('temporalAddress'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    PORT: '0',
    METRICS_PORT: '0',
    DATABASE_POOL_SIZE: '4',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    JUNCTION_DEV_SECRET_KEY: devKey,
    JUNCTION_PROD_SECRET_KEY: prodKey,
    ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
    ...options.env,
  });
  const service = await startService(config);
  const url = service.apiUrl ?? '';
  return {
    url,
    config,
    database,
    service,
    devKey,
    prodKey,
    taskQueue,
    client: (key = devKey) => new Junction({ secretKey: key, host: url }),
    async stop() {
      await service.stop();
      if (!options.database) await database.drop();
    },
  };
}

/**
 * A second `junction api`, in its own process beside `app`: the same database, Temporal and
 * encryption keys, a free port; `client` talks to it with the app's dev key.
 */
export async function startApiBeside(
  app: TestApp,
  logLevel = 'warn',
): Promise<{ process: JunctionProcess; client: Junction }> {
  const api = await startJunctionProcess('api', {
    DATABASE_URL: app.database.url,
    TEMPORAL_ADDRESS: harnessValue('temporalAddress'),
    ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
    PORT: String(await freePort()),
    LOG_LEVEL: logLevel,
  });
  return {
    process: api,
    client: new Junction({ secretKey: app.devKey, host: api.banner('API') ?? '' }),
  };
}

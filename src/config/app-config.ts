import { resolve } from 'node:path';
import { configSchema, type EnvironmentValues, type RunMode } from './config.schema';

export interface AppConfig {
  readonly mode: RunMode;
  readonly http: {
    readonly host: string;
    readonly port: number;
    readonly publicUrl: string | undefined;
    readonly bodyLimitBytes: number;
  };
  readonly metrics: { readonly host: string; readonly port: number };
  readonly dataDir: string;
  readonly database: { readonly url: string | undefined; readonly poolSize: number };
  readonly temporal: {
    readonly address: string | undefined;
    readonly namespace: string;
    readonly taskQueue: string;
    readonly uiUrl: string | undefined;
    readonly cliPath: string | undefined;
    readonly devPort: number;
    readonly devUiPort: number;
  };
  readonly worker: { readonly maxConcurrentActivities: number; readonly shutdownGraceMs: number };
  readonly scripts: {
    readonly memoryLimitMb: number;
    readonly syncDefaultTimeoutMs: number;
    readonly syncHeartbeatTimeoutMs: number;
    readonly syncMaxAttempts: number;
    readonly syncMinFrequency: string;
    readonly actionTimeoutMs: number;
    readonly actionThreads: number;
    readonly scheduleReconcileIntervalMs: number;
  };
  readonly initialSecretKeys: {
    readonly dev: string | undefined;
    readonly prod: string | undefined;
  };
  readonly encryptionKeys: string | undefined;
  readonly providersFile: string | undefined;
  readonly credentials: {
    readonly tokenRequestTimeoutMs: number;
    readonly refreshLeaseMs: number;
    readonly metadataMaxBytes: number;
    readonly connectionCacheSize: number;
  };
  readonly proxy: {
    readonly timeoutMs: number;
    readonly maxRetries: number;
    readonly maxRetryWaitMs: number;
    readonly maxReplayBodyBytes: number;
  };
  readonly webhooks: { readonly timeoutMs: number };
  readonly log: { readonly level: EnvironmentValues['LOG_LEVEL']; readonly pretty: boolean };
}

export class ConfigurationError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigurationError';
  }
}

/**
 * The only place that reads environment variables. Reports every problem at once.
 */
export function loadConfig(mode: RunMode, env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = configSchema.safeParse(env);
  const problems: string[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);

  if (mode !== 'local') {
    if (!env.DATABASE_URL?.trim()) {
      problems.push(
        `DATABASE_URL: required in ${mode} mode (only the local mode embeds PostgreSQL)`,
      );
    }
    if (!env.ENCRYPTION_KEYS?.trim()) {
      problems.push(
        `ENCRYPTION_KEYS: required in ${mode} mode (only the local mode generates one)`,
      );
    }
    if (!env.TEMPORAL_ADDRESS?.trim()) {
      problems.push(
        `TEMPORAL_ADDRESS: required in ${mode} mode (only the local mode starts Temporal)`,
      );
    }
  }
  if (parsed.success && parsed.data.REFRESH_LEASE_MS <= parsed.data.TOKEN_REQUEST_TIMEOUT_MS) {
    problems.push('REFRESH_LEASE_MS: must exceed TOKEN_REQUEST_TIMEOUT_MS');
  }
  if (!parsed.success || problems.length > 0) {
    throw new ConfigurationError(problems);
  }
  const values = parsed.data;
  return {
    mode,
    http: {
      host: values.HOST,
      port: values.PORT,
      publicUrl: values.PUBLIC_URL,
      bodyLimitBytes: values.BODY_LIMIT_BYTES,
    },
    metrics: { host: values.METRICS_HOST, port: values.METRICS_PORT },
    dataDir: resolve(values.DATA_DIR),
    database: { url: values.DATABASE_URL, poolSize: values.DATABASE_POOL_SIZE },
    temporal: {
      address: values.TEMPORAL_ADDRESS,
      namespace: values.TEMPORAL_NAMESPACE,
      taskQueue: values.TEMPORAL_TASK_QUEUE,
      uiUrl: values.TEMPORAL_UI_URL,
      cliPath: values.TEMPORAL_CLI_PATH,
      devPort: values.TEMPORAL_DEV_PORT,
      devUiPort: values.TEMPORAL_DEV_UI_PORT,
    },
    worker: {
      maxConcurrentActivities: values.WORKER_MAX_CONCURRENT_ACTIVITIES,
      shutdownGraceMs: values.WORKER_SHUTDOWN_GRACE_MS,
    },
    scripts: {
      memoryLimitMb: values.SCRIPT_MEMORY_LIMIT_MB,
      syncDefaultTimeoutMs: values.SYNC_DEFAULT_TIMEOUT_MS,
      syncHeartbeatTimeoutMs: values.SYNC_HEARTBEAT_TIMEOUT_MS,
      syncMaxAttempts: values.SYNC_MAX_ATTEMPTS,
      syncMinFrequency: values.SYNC_MIN_FREQUENCY,
      actionTimeoutMs: values.ACTION_TIMEOUT_MS,
      actionThreads: values.ACTION_THREADS,
      scheduleReconcileIntervalMs: values.SCHEDULE_RECONCILE_INTERVAL_MS,
    },
    initialSecretKeys: {
      dev: values.JUNCTION_DEV_SECRET_KEY,
      prod: values.JUNCTION_PROD_SECRET_KEY,
    },
    encryptionKeys: values.ENCRYPTION_KEYS,
    providersFile: values.PROVIDERS_FILE ? resolve(values.PROVIDERS_FILE) : undefined,
    credentials: {
      tokenRequestTimeoutMs: values.TOKEN_REQUEST_TIMEOUT_MS,
      refreshLeaseMs: values.REFRESH_LEASE_MS,
      metadataMaxBytes: values.METADATA_MAX_BYTES,
      connectionCacheSize: values.CONNECTION_CACHE_SIZE,
    },
    proxy: {
      timeoutMs: values.PROXY_TIMEOUT_MS,
      maxRetries: values.PROXY_MAX_RETRIES,
      maxRetryWaitMs: values.PROXY_MAX_RETRY_WAIT_MS,
      maxReplayBodyBytes: values.PROXY_MAX_REPLAY_BODY_BYTES,
    },
    webhooks: { timeoutMs: values.WEBHOOK_TIMEOUT_MS },
    log: { level: values.LOG_LEVEL, pretty: values.LOG_PRETTY },
  };
}

import { z } from 'zod';
import { parseEncryptionKeys } from '../crypto/secret-box';

/** The entry modes of the one build. */
export const RUN_MODES = ['api', 'worker', 'local'] as const;
export type RunMode = (typeof RUN_MODES)[number];

const port = z.coerce.number().int().min(0).max(65535);
const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));
const booleanString = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');
const secretKey = optionalString.refine((value) => value === undefined || value.length >= 24, {
  message: 'must be at least 24 characters',
});

interface VariableDoc {
  readonly meaning: string;
  readonly secret: boolean;
  /** The default as a reader sees it, where it is not a literal in the schema. */
  readonly defaultText?: string;
}

/**
 * Every environment variable Junction reads, declared once: its type and default (the schema)
 * and its documentation (the README table is generated from `CONFIG_VARIABLES`).
 */
export const CONFIG_VARIABLES = {
  HOST: {
    schema: z.string().min(1).default('127.0.0.1'),
    doc: { meaning: 'Address the HTTP API listens on (0.0.0.0 in containers).', secret: false },
  },
  PORT: {
    schema: port.default(3003),
    doc: { meaning: 'Port of the HTTP API.', secret: false },
  },
  PUBLIC_URL: {
    schema: optionalString.pipe(z.url().optional()),
    doc: {
      meaning: 'URL under which clients reach the API, used in start-up messages.',
      secret: false,
      defaultText: 'http://HOST:PORT',
    },
  },
  METRICS_HOST: {
    schema: z.string().min(1).default('127.0.0.1'),
    doc: { meaning: 'Address of the operator port serving /metrics.', secret: false },
  },
  METRICS_PORT: {
    schema: port.default(9464),
    doc: {
      meaning: 'Operator port serving Prometheus /metrics (no key needed). 0 picks a free port.',
      secret: false,
    },
  },
  BODY_LIMIT_BYTES: {
    schema: z.coerce
      .number()
      .int()
      .positive()
      .default(5 * 1024 * 1024),
    doc: { meaning: 'Largest JSON request body accepted; larger bodies get 413.', secret: false },
  },
  DATA_DIR: {
    schema: z.string().min(1).default('.data'),
    doc: {
      meaning:
        'Folder for the local mode: embedded PostgreSQL, Temporal SQLite file, dev key file.',
      secret: false,
    },
  },
  DATABASE_URL: {
    schema: optionalString.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
        .optional(),
    ),
    doc: {
      meaning:
        'PostgreSQL connection URL. Required in api and worker modes; without it the local mode uses embedded PostgreSQL (PGlite) under DATA_DIR.',
      secret: true,
      defaultText: '(embedded, local mode only)',
    },
  },
  DATABASE_POOL_SIZE: {
    schema: z.coerce.number().int().min(1).max(200).default(10),
    doc: { meaning: 'Connections in the PostgreSQL pool of each process.', secret: false },
  },
  TEMPORAL_ADDRESS: {
    schema: optionalString,
    doc: {
      meaning:
        'host:port of the Temporal frontend. Required in api and worker modes; without it the local mode starts a Temporal dev server.',
      secret: false,
      defaultText: '(dev server, local mode only)',
    },
  },
  TEMPORAL_NAMESPACE: {
    schema: z.string().min(1).default('default'),
    doc: { meaning: 'Temporal namespace of workflows and schedules.', secret: false },
  },
  TEMPORAL_TASK_QUEUE: {
    schema: z.string().min(1).default('junction'),
    doc: { meaning: 'Task queue that workers poll and workflows are started on.', secret: false },
  },
  TEMPORAL_UI_URL: {
    schema: optionalString.pipe(z.url().optional()),
    doc: {
      meaning: 'URL of the Temporal UI, shown in start-up messages.',
      secret: false,
      defaultText: 'the dev server UI in local mode',
    },
  },
  TEMPORAL_CLI_PATH: {
    schema: optionalString,
    doc: {
      meaning: 'Path of the `temporal` CLI for the local dev server.',
      secret: false,
      defaultText: '`temporal` on PATH, else the SDK download',
    },
  },
  TEMPORAL_DEV_PORT: {
    schema: port.default(7233),
    doc: { meaning: 'Frontend port of the local dev server.', secret: false },
  },
  TEMPORAL_DEV_UI_PORT: {
    schema: port.default(8233),
    doc: { meaning: 'UI port of the local dev server.', secret: false },
  },
  WORKER_MAX_CONCURRENT_ACTIVITIES: {
    schema: z.coerce.number().int().min(1).max(1000).default(50),
    doc: { meaning: 'Activities one worker process runs at once.', secret: false },
  },
  WORKER_SHUTDOWN_GRACE_MS: {
    schema: z.coerce.number().int().min(0).default(30_000),
    doc: { meaning: 'How long a stopping worker lets in-flight activities finish.', secret: false },
  },
  SCRIPT_MEMORY_LIMIT_MB: {
    schema: z.coerce.number().int().min(32).max(16_384).default(512),
    doc: {
      meaning:
        'Heap limit of one script run (its own thread); a script that needs more fails its run.',
      secret: false,
    },
  },
  SYNC_DEFAULT_TIMEOUT_MS: {
    schema: z.coerce.number().int().min(1_000).default(86_400_000),
    doc: {
      meaning: "Longest sync run when the sync's definition sets no timeout (default 24 hours).",
      secret: false,
    },
  },
  SYNC_HEARTBEAT_TIMEOUT_MS: {
    schema: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
    doc: {
      meaning:
        'A sync run whose worker is silent this long is resumed on another worker from its last checkpoint.',
      secret: false,
    },
  },
  ACTION_TIMEOUT_MS: {
    schema: z.coerce.number().int().min(100).default(900_000),
    doc: {
      meaning:
        'Longest action run when its definition sets no shorter timeout (default 15 minutes); then 504.',
      secret: false,
    },
  },
  ACTION_THREADS: {
    schema: z.coerce.number().int().min(1).max(64).default(4),
    doc: {
      meaning: 'Threads a worker keeps warm for actions (one action at a time each).',
      secret: false,
    },
  },
  SYNC_MIN_FREQUENCY: {
    schema: z
      .string()
      .regex(/^\d+\s*(s|m|h|d|seconds?|minutes?|hours?|days?)$/i, 'a number with a unit, e.g. 30s')
      .default('30s'),
    doc: {
      meaning: 'Shortest frequency a sync may run at (definitions and per-connection overrides).',
      secret: false,
    },
  },
  SCHEDULE_RECONCILE_INTERVAL_MS: {
    schema: z.coerce.number().int().min(0).default(300_000),
    doc: {
      meaning:
        "How often a worker makes Temporal's schedules match the database (also at start-up); 0 turns the periodic run off.",
      secret: false,
    },
  },
  SYNC_MAX_ATTEMPTS: {
    schema: z.coerce.number().int().min(1).max(100).default(5),
    doc: {
      meaning:
        'Attempts of a sync run lost to worker or infrastructure failures (a script that throws is not retried).',
      secret: false,
    },
  },
  JUNCTION_DEV_SECRET_KEY: {
    schema: secretKey,
    doc: {
      meaning:
        'Initial secret key of the dev environment, used only when the environment is first created.',
      secret: true,
      defaultText: '(generated and printed once)',
    },
  },
  JUNCTION_PROD_SECRET_KEY: {
    schema: secretKey,
    doc: {
      meaning:
        'Initial secret key of the prod environment, used only when the environment is first created.',
      secret: true,
      defaultText: '(generated and printed once)',
    },
  },
  ENCRYPTION_KEYS: {
    schema: optionalString.superRefine((value, context) => {
      if (value === undefined) return;
      try {
        parseEncryptionKeys(value);
      } catch (error) {
        context.addIssue({
          code: 'custom',
          message: (error as Error).message.replace(/^ENCRYPTION_KEYS: /, ''),
        });
      }
    }),
    doc: {
      meaning:
        'Keys that encrypt credentials, client secrets and environment variable values (AES-256-GCM): comma-separated `id:base64-of-32-bytes`; the first encrypts, all decrypt. Required in api and worker modes. Generate one with `openssl rand -base64 32`.',
      secret: true,
      defaultText: '(local mode: generated into DATA_DIR/encryption-keys)',
    },
  },
  PROVIDERS_FILE: {
    schema: optionalString,
    doc: {
      meaning:
        'JSON file of custom providers (same fields as the catalog); entries override built-in providers of the same name.',
      secret: false,
      defaultText: '(none)',
    },
  },
  TOKEN_REQUEST_TIMEOUT_MS: {
    schema: z.coerce.number().int().min(100).max(60_000).default(10_000),
    doc: { meaning: 'Timeout of a call to a provider token endpoint (refresh).', secret: false },
  },
  REFRESH_LEASE_MS: {
    schema: z.coerce.number().int().min(1_000).max(300_000).default(30_000),
    doc: {
      meaning:
        'How long one process may hold the right to refresh a connection; a crashed holder blocks others no longer. Must exceed TOKEN_REQUEST_TIMEOUT_MS.',
      secret: false,
    },
  },
  CONNECTION_CACHE_SIZE: {
    schema: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
    doc: {
      meaning:
        'Connections each process keeps in memory (credentials decrypted) for getConnection, the proxy and scripts; 0 disables. An entry is dropped as soon as the connection or its integration changes, in any process (PostgreSQL notifications); tokens due for refresh are never served from it.',
      secret: false,
    },
  },
  METADATA_MAX_BYTES: {
    schema: z.coerce
      .number()
      .int()
      .min(1024)
      .default(64 * 1024),
    doc: {
      meaning: 'Largest connection metadata object (as JSON); larger gets 413.',
      secret: false,
    },
  },
  PROXY_TIMEOUT_MS: {
    schema: z.coerce.number().int().min(100).max(600_000).default(60_000),
    doc: {
      meaning: 'Time the proxy waits for an upstream to answer (each attempt); then 504.',
      secret: false,
    },
  },
  PROXY_MAX_RETRIES: {
    schema: z.coerce.number().int().min(0).max(20).default(10),
    doc: { meaning: 'Upper bound of the `Retries` header of proxied requests.', secret: false },
  },
  PROXY_MAX_RETRY_WAIT_MS: {
    schema: z.coerce.number().int().min(0).max(300_000).default(30_000),
    doc: {
      meaning: 'Longest wait the proxy honours from a `Retry-After` or rate-limit reset header.',
      secret: false,
    },
  },
  PROXY_MAX_REPLAY_BODY_BYTES: {
    schema: z.coerce
      .number()
      .int()
      .min(1024)
      .default(50 * 1024 * 1024),
    doc: {
      meaning:
        'Largest request body the proxy keeps in memory to replay on retries (bodies of requests without retries stream and have no limit).',
      secret: false,
    },
  },
  WEBHOOK_TIMEOUT_MS: {
    schema: z.coerce.number().int().min(100).max(120_000).default(10_000),
    doc: {
      meaning:
        'Time a webhook receiver has to answer one delivery attempt; a slower answer counts as a failure and is retried.',
      secret: false,
    },
  },
  LOG_LEVEL: {
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    doc: { meaning: 'Lowest level written to the JSON log.', secret: false },
  },
  LOG_PRETTY: {
    schema: booleanString.default(false),
    doc: {
      meaning: 'Human-readable logs instead of JSON lines (development only).',
      secret: false,
    },
  },
} satisfies Record<string, { schema: z.ZodType; doc: VariableDoc }>;

type Variables = typeof CONFIG_VARIABLES;
export type VariableName = keyof Variables;

export const configSchema = z.object(
  Object.fromEntries(
    Object.entries(CONFIG_VARIABLES).map(([name, variable]) => [name, variable.schema]),
  ) as { [Name in VariableName]: Variables[Name]['schema'] },
);

export type EnvironmentValues = z.infer<typeof configSchema>;

import type { StoredCredentials as Credentials } from '../connections/credentials';

export interface Environment {
  readonly name: 'dev' | 'prod';
  readonly webhook_url: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface UpdateEnvironmentInput {
  readonly webhook_url: string | null;
}

export type AuthMode = 'OAUTH2' | 'OAUTH1' | 'API_KEY' | 'BASIC';

export interface IntegrationSummary {
  readonly unique_key: string;
  readonly provider: string;
}

export interface Integration extends IntegrationSummary {
  readonly auth_mode: AuthMode;
  readonly created_at: string;
  readonly updated_at: string;
  /** Only with `includeCredentials`. */
  readonly client_id?: string | null;
  readonly client_secret?: string | null;
  readonly scopes?: string | null;
}

export interface IntegrationInput {
  readonly provider: string;
  readonly provider_config_key: string;
  readonly oauth_client_id?: string;
  readonly oauth_client_secret?: string;
  /** Comma-separated. */
  readonly oauth_scopes?: string;
}

export type {
  ApiKeyCredentials,
  BasicCredentials,
  OAuth1Credentials,
  OAuth2Credentials,
  StoredCredentials as Credentials,
} from '../connections/credentials';

export type Metadata = Record<string, unknown>;

/** Spec 2.1. */
export interface Connection<M extends Metadata = Metadata> {
  readonly id: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly provider_config_key: string;
  readonly provider: string;
  readonly connection_id: string;
  readonly credentials: Credentials;
  readonly connection_config: Record<string, unknown>;
  readonly metadata: M | null;
}

/** Spec 2.3. */
export interface ConnectionListItem {
  readonly id: number;
  readonly connection_id: string;
  readonly provider: string;
  readonly provider_config_key: string;
  readonly created: string;
  readonly metadata: Metadata | null;
}

/** Spec 2.4. */
export interface ImportConnectionInput {
  readonly connection_id: string;
  readonly provider_config_key: string;
  readonly access_token?: string;
  readonly refresh_token?: string;
  readonly expires_at?: string | Date;
  readonly expires_in?: number;
  readonly oauth_token?: string;
  readonly oauth_token_secret?: string;
  readonly username?: string;
  readonly password?: string;
  readonly api_key?: string;
  readonly metadata?: Metadata;
  readonly connection_config?: Record<string, unknown>;
}

export interface EnvironmentVariable {
  readonly name: string;
  readonly value: string;
}

/** A catalog or custom provider; see the README for the fields. */
export interface Provider {
  readonly name: string;
  readonly display_name: string;
  readonly auth_mode: AuthMode;
  readonly [field: string]: unknown;
}

/** Spec 4.3, plus the retry-on codes and decompression of the REST headers. */
export interface ProxyConfig {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
  /** Path on the external API, e.g. `/repos/acme/app/issues`. */
  readonly endpoint: string;
  readonly providerConfigKey: string;
  readonly connectionId: string;
  /** Extra headers for the external API (sent as `Junction-Proxy-<name>`). */
  readonly headers?: Record<string, string>;
  readonly params?: Record<string, string | number | boolean>;
  readonly data?: unknown;
  /** Retries on network errors, timeouts, 429 and 5xx (never 2xx); default 0. */
  readonly retries?: number;
  readonly retryOn?: readonly number[];
  readonly baseUrlOverride?: string;
  readonly decompress?: boolean;
  readonly responseType?: 'json' | 'text' | 'arraybuffer' | 'stream';
}

/** Spec 2.7: what Junction adds to every synced record. */
export interface RecordMetadata {
  readonly deleted_at: string | null;
  readonly last_action: 'ADDED' | 'UPDATED' | 'DELETED';
  readonly first_seen_at: string;
  readonly last_modified_at: string;
  /** Passed as `cursor`, continues right after this record. */
  readonly cursor: string;
}

export type SyncedRecord<T extends object = Record<string, unknown>> = T & {
  readonly _service_metadata: RecordMetadata;
};

export type RecordFilter = 'added' | 'updated' | 'deleted';

/** Spec 4.4. */
export interface ListRecordsConfig {
  readonly providerConfigKey: string;
  readonly connectionId: string;
  readonly model: string;
  /** ISO 8601: only records last modified at or after it (alias of `modifiedAfter`). */
  readonly delta?: string | Date;
  readonly modifiedAfter?: string | Date;
  /** Records per page (at most 10,000); without it every record is returned. */
  readonly limit?: number;
  /** `next_cursor` of the previous page. */
  readonly cursor?: string | null;
  /** `added`, `updated`, `deleted`, or a comma-separated combination (or an array of them). */
  readonly filter?: string | readonly RecordFilter[];
}

export interface ListRecordsResult<T extends object = Record<string, unknown>> {
  readonly records: SyncedRecord<T>[];
  /** null on the last page. */
  readonly next_cursor: string | null;
}

/** The deprecated getRecords: OFFSET pages. */
export interface GetRecordsConfig {
  readonly providerConfigKey: string;
  readonly connectionId: string;
  readonly model: string;
  readonly delta?: string | Date;
  readonly offset?: number;
  readonly limit?: number;
  readonly sortBy?: 'id' | 'created_at' | 'updated_at';
  readonly order?: 'asc' | 'desc';
  readonly filter?: string | readonly RecordFilter[];
}

// Syncs (spec 2.6)

/** RUNNING, PAUSED, SUCCESS, ERROR, STOPPED (last run cancelled, or schedule missing), PENDING (started, not run yet). */
export type SyncStatus = 'RUNNING' | 'PAUSED' | 'SUCCESS' | 'ERROR' | 'STOPPED' | 'PENDING';

export interface SyncStatusItem {
  /** The sync's schedule ID for this connection (also its Temporal Schedule ID). */
  readonly id: string;
  readonly connection_id: string;
  readonly name: string;
  readonly status: SyncStatus;
  readonly type: 'INITIAL' | 'INCREMENTAL' | null;
  readonly latestResult: Record<string, { added: number; updated: number; deleted: number }>;
  readonly finishedAt: string | null;
  readonly nextScheduledSyncAt: string | null;
  readonly frequency: string;
}

export interface SyncControlResult {
  readonly success: true;
}

export interface SyncRun {
  readonly id: string;
  readonly sync: string;
  readonly type: 'INITIAL' | 'INCREMENTAL';
  readonly status: 'RUNNING' | 'SUCCESS' | 'ERROR' | 'CANCELLED';
  readonly started_at: string;
  readonly finished_at: string | null;
  readonly results: Record<string, { added: number; updated: number; deleted: number }>;
  readonly error: { message: string; reason?: string } | null;
  readonly attempts: number;
  readonly script_version: number;
  readonly workflow_id: string;
}

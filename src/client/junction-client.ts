import axios, {
  type AxiosInstance,
  type AxiosRequestConfig,
  type AxiosResponse,
  isAxiosError,
} from 'axios';
import { errorFromResponse, JunctionError } from './errors';
import type {
  Connection,
  ConnectionListItem,
  Environment,
  EnvironmentVariable,
  GetRecordsConfig,
  ImportConnectionInput,
  Integration,
  IntegrationInput,
  IntegrationSummary,
  ListRecordsConfig,
  ListRecordsResult,
  Metadata,
  Provider,
  ProxyConfig,
  SyncedRecord,
  UpdateEnvironmentInput,
  SyncControlResult,
  SyncRun,
  SyncStatusItem,
} from './types';

export interface JunctionClientOptions {
  /** The environment's secret key; it selects the environment. */
  readonly secretKey: string;
  /** Base URL of the service, e.g. `http://localhost:3003`. */
  readonly host?: string;
  /** Per-request timeout in milliseconds (default 60 s). */
  readonly timeoutMs?: number;
}

const DEFAULT_HOST = 'http://localhost:3003';

/** The TypeScript client of Junction's REST API. Every failure is a `JunctionError`. */
export class Junction {
  protected readonly http: AxiosInstance;

  constructor(options: JunctionClientOptions) {
    if (!options.secretKey)
      throw new JunctionError('A secret key is required', 0, 'missing_api_key');
    this.http = axios.create({
      baseURL: (options.host ?? DEFAULT_HOST).replace(/\/+$/, ''),
      timeout: options.timeoutMs ?? 60_000,
      headers: { authorization: `Bearer ${options.secretKey}` },
    });
  }

  /** The caller's environment (name and webhook URL). */
  getEnvironment(): Promise<Environment> {
    return this.request<Environment>({ method: 'GET', url: '/environment' });
  }

  /** Sets (or with null removes) the environment's webhook URL. */
  updateEnvironment(input: UpdateEnvironmentInput): Promise<Environment> {
    return this.request<Environment>({ method: 'PATCH', url: '/environment', data: input });
  }

  // Integrations (spec 2.5)

  async listIntegrations(): Promise<IntegrationSummary[]> {
    return (
      await this.request<{ configs: IntegrationSummary[] }>({ method: 'GET', url: '/config' })
    ).configs;
  }

  /** With `includeCredentials`, also the client ID, client secret and scopes. */
  async getIntegration(integrationId: string, includeCredentials = false): Promise<Integration> {
    const { config } = await this.request<{ config: Integration }>({
      method: 'GET',
      url: `/config/${encodeURIComponent(integrationId)}`,
      params: { include_creds: String(includeCredentials) },
    });
    return config;
  }

  async createIntegration(input: IntegrationInput): Promise<Integration> {
    return (
      await this.request<{ config: Integration }>({ method: 'POST', url: '/config', data: input })
    ).config;
  }

  async updateIntegration(input: IntegrationInput): Promise<Integration> {
    return (
      await this.request<{ config: Integration }>({ method: 'PUT', url: '/config', data: input })
    ).config;
  }

  async deleteIntegration(integrationId: string): Promise<void> {
    await this.request({ method: 'DELETE', url: `/config/${encodeURIComponent(integrationId)}` });
  }

  // Providers

  async listProviders(): Promise<Provider[]> {
    return (await this.request<{ providers: Provider[] }>({ method: 'GET', url: '/providers' }))
      .providers;
  }

  async getProvider(name: string): Promise<Provider> {
    return (
      await this.request<{ provider: Provider }>({
        method: 'GET',
        url: `/providers/${encodeURIComponent(name)}`,
      })
    ).provider;
  }

  /** Creates or replaces a custom provider of this environment. */
  async putProvider(
    name: string,
    definition: Omit<Provider, 'name'> & Record<string, unknown>,
  ): Promise<Provider> {
    return (
      await this.request<{ provider: Provider }>({
        method: 'PUT',
        url: `/providers/${encodeURIComponent(name)}`,
        data: definition,
      })
    ).provider;
  }

  async deleteProvider(name: string): Promise<void> {
    await this.request({ method: 'DELETE', url: `/providers/${encodeURIComponent(name)}` });
  }

  // Connections (spec 2.1 to 2.4, 4.2)

  /** Imports existing credentials as a connection; importing again replaces its credentials. */
  importConnection(input: ImportConnectionInput): Promise<Omit<Connection, 'credentials'>> {
    const expiresAt =
      input.expires_at instanceof Date ? input.expires_at.toISOString() : input.expires_at;
    return this.request({
      method: 'POST',
      url: '/connection',
      data: { ...input, ...(expiresAt ? { expires_at: expiresAt } : {}) },
    });
  }

  /** Without a connection ID, every connection of the environment. Never refreshes tokens. */
  listConnections(connectionId?: string): Promise<{ connections: ConnectionListItem[] }> {
    return this.request({
      method: 'GET',
      url: '/connection',
      params: connectionId === undefined ? {} : { connectionId },
    });
  }

  /** The connection with usable credentials: an OAuth 2 token is refreshed first when needed. */
  getConnection<M extends Metadata = Metadata>(
    integrationId: string,
    connectionId: string,
    forceRefresh = false,
    refreshToken = false,
  ): Promise<Connection<M>> {
    return this.request({
      method: 'GET',
      url: `/connection/${encodeURIComponent(connectionId)}`,
      params: {
        provider_config_key: integrationId,
        force_refresh: String(forceRefresh),
        refresh_token: String(refreshToken),
      },
    });
  }

  /** Throws a `JunctionError` when the connection could not be deleted (for example 404). */
  async deleteConnection(integrationId: string, connectionId: string): Promise<void> {
    await this.request({
      method: 'DELETE',
      url: `/connection/${encodeURIComponent(connectionId)}`,
      params: { provider_config_key: integrationId },
    });
  }

  /** Replaces all metadata of one or several connections. */
  async setMetadata(
    integrationId: string,
    connectionId: string | string[],
    metadata: Metadata,
  ): Promise<void> {
    await this.request({
      method: 'POST',
      url: '/connection/metadata',
      data: { provider_config_key: integrationId, connection_id: connectionId, metadata },
    });
  }

  /** Merges into the metadata of one or several connections (top-level keys). */
  async updateMetadata(
    integrationId: string,
    connectionId: string | string[],
    metadata: Metadata,
  ): Promise<void> {
    await this.request({
      method: 'PATCH',
      url: '/connection/metadata',
      data: { provider_config_key: integrationId, connection_id: connectionId, metadata },
    });
  }

  async getMetadata<M extends Metadata = Metadata>(
    integrationId: string,
    connectionId: string,
  ): Promise<M> {
    const connection = await this.getConnection<M>(integrationId, connectionId);
    return (connection.metadata ?? {}) as M;
  }

  // Environment variables (spec 2.8)

  getEnvironmentVariables(): Promise<EnvironmentVariable[]> {
    return this.request({ method: 'GET', url: '/environment-variables' });
  }

  /** Replaces every variable of the environment. */
  setEnvironmentVariables(
    variables: readonly EnvironmentVariable[],
  ): Promise<EnvironmentVariable[]> {
    return this.request({ method: 'PUT', url: '/environment-variables', data: { variables } });
  }

  // Proxy (spec 4.3)

  /**
   * Sends a request to the external API with the connection's credentials attached and returns
   * the external response as received (any status). Junction's own failures (unknown
   * connection, refused refresh, unreachable upstream) throw a `JunctionError`.
   */
  async proxy<T = unknown>(config: ProxyConfig): Promise<AxiosResponse<T>> {
    const headers: Record<string, string> = {
      'Connection-Id': config.connectionId,
      'Provider-Config-Key': config.providerConfigKey,
    };
    if (config.retries !== undefined) headers.Retries = String(config.retries);
    if (config.retryOn?.length) headers['Retry-On'] = config.retryOn.join(',');
    if (config.baseUrlOverride) headers['Base-Url-Override'] = config.baseUrlOverride;
    if (config.decompress !== undefined) headers.Decompress = String(config.decompress);
    for (const [name, value] of Object.entries(config.headers ?? {}))
      headers[`Junction-Proxy-${name}`] = value;
    let response: AxiosResponse<T>;
    try {
      response = await this.http.request<T>({
        method: config.method ?? 'GET',
        url: `/proxy/${config.endpoint.replace(/^\/+/, '')}`,
        headers,
        params: config.params,
        data: config.data,
        responseType: config.responseType ?? 'json',
        decompress: false,
        validateStatus: () => true,
      });
    } catch (error) {
      throw toJunctionError(error);
    }
    if (response.headers['x-junction-error'] === 'true')
      throw errorFromResponse(response.status, response.data);
    return response;
  }

  get<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<AxiosResponse<T>> {
    return this.proxy<T>({ ...config, method: 'GET' });
  }

  post<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<AxiosResponse<T>> {
    return this.proxy<T>({ ...config, method: 'POST' });
  }

  patch<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<AxiosResponse<T>> {
    return this.proxy<T>({ ...config, method: 'PATCH' });
  }

  delete<T = unknown>(config: Omit<ProxyConfig, 'method'>): Promise<AxiosResponse<T>> {
    return this.proxy<T>({ ...config, method: 'DELETE' });
  }

  // Records (spec 2.7, 4.4, 9)

  /** One page of a model's records in modification order; `next_cursor` null on the last page. */
  listRecords<T extends object = Record<string, unknown>>(
    config: ListRecordsConfig,
  ): Promise<ListRecordsResult<T>> {
    return this.request({
      method: 'GET',
      url: '/records',
      headers: recordHeaders(config),
      params: definedParams({
        model: config.model,
        modified_after: timestampParam(config.modifiedAfter),
        delta: config.modifiedAfter === undefined ? timestampParam(config.delta) : undefined,
        limit: config.limit,
        cursor: config.cursor ?? undefined,
        filter: filterParam(config.filter),
      }),
    });
  }

  /** @deprecated OFFSET pages get slower the further they go: use `listRecords`. */
  getRecords<T extends object = Record<string, unknown>>(
    config: GetRecordsConfig,
  ): Promise<SyncedRecord<T>[]> {
    return this.request({
      method: 'GET',
      url: '/sync/records',
      headers: recordHeaders(config),
      params: definedParams({
        model: config.model,
        delta: timestampParam(config.delta),
        offset: config.offset,
        limit: config.limit,
        sort_by: config.sortBy,
        order: config.order,
        filter: filterParam(config.filter),
      }),
    });
  }

  // Syncs (spec 2.6, 4.2)

  /** Runs the syncs now (all of the integration when `syncNames` is empty). */
  triggerSync(
    integrationId: string,
    syncNames: readonly string[],
    connectionId?: string,
    fullResync?: boolean,
  ): Promise<SyncControlResult> {
    return this.request({
      method: 'POST',
      url: '/sync/trigger',
      data: {
        provider_config_key: integrationId,
        syncs: syncNames,
        ...(connectionId === undefined ? {} : { connection_id: connectionId }),
        ...(fullResync === undefined ? {} : { full_resync: fullResync }),
      },
    });
  }

  /** Starts (unpauses) the syncs' schedules; a sync that never ran runs now. */
  startSync(
    integrationId: string,
    syncNames: readonly string[],
    connectionId?: string,
  ): Promise<SyncControlResult> {
    return this.request({
      method: 'POST',
      url: '/sync/start',
      data: { provider_config_key: integrationId, syncs: syncNames, connection_id: connectionId },
    });
  }

  /** Pauses the syncs' schedules: a running run finishes, nothing new starts. */
  pauseSync(
    integrationId: string,
    syncNames: readonly string[],
    connectionId?: string,
  ): Promise<SyncControlResult> {
    return this.request({
      method: 'POST',
      url: '/sync/pause',
      data: { provider_config_key: integrationId, syncs: syncNames, connection_id: connectionId },
    });
  }

  /** Status of the named syncs, or of all with `'*'`. */
  syncStatus(
    integrationId: string,
    syncNames: readonly string[] | '*',
    connectionId?: string,
  ): Promise<{ syncs: SyncStatusItem[] }> {
    return this.request({
      method: 'GET',
      url: '/sync/status',
      params: definedParams({
        provider_config_key: integrationId,
        syncs: syncNames === '*' ? '*' : syncNames.join(','),
        connection_id: connectionId,
      }),
    });
  }

  /** Overrides the sync's frequency for one connection; `null` reverts to the sync's default. */
  updateSyncConnectionFrequency(
    integrationId: string,
    syncName: string,
    connectionId: string,
    frequency: string | null,
  ): Promise<{ frequency: string }> {
    return this.request({
      method: 'PUT',
      url: '/sync/update-connection-frequency',
      data: {
        provider_config_key: integrationId,
        connection_id: connectionId,
        sync: syncName,
        frequency,
      },
    });
  }

  /** A connection's sync runs, newest first (Junction's own route). */
  listSyncRuns(
    integrationId: string,
    connectionId: string,
    syncName?: string,
    limit?: number,
  ): Promise<{ runs: SyncRun[] }> {
    return this.request({
      method: 'GET',
      url: '/sync/runs',
      params: definedParams({
        provider_config_key: integrationId,
        connection_id: connectionId,
        sync: syncName,
        limit,
      }),
    });
  }

  // Actions (spec 4.2 triggerAction)

  /**
   * Runs an action on a worker and resolves with its result. A script's ActionError rejects
   * with a JunctionError whose code is `action_failure` and whose payload is the script's.
   */
  triggerAction<I = unknown, O = unknown>(
    integrationId: string,
    connectionId: string,
    actionName: string,
    input?: I,
  ): Promise<O> {
    return this.request({
      method: 'POST',
      url: '/action/trigger',
      headers: { 'Connection-Id': connectionId, 'Provider-Config-Key': integrationId },
      data: { action_name: actionName, input },
    });
  }

  protected async request<T>(config: AxiosRequestConfig): Promise<T> {
    try {
      const response = await this.http.request<T>(config);
      return response.data;
    } catch (error) {
      throw toJunctionError(error);
    }
  }
}

function recordHeaders(config: {
  readonly providerConfigKey: string;
  readonly connectionId: string;
}): Record<string, string> {
  return { 'Connection-Id': config.connectionId, 'Provider-Config-Key': config.providerConfigKey };
}

function timestampParam(value: string | Date | undefined): string | undefined {
  return value instanceof Date ? value.toISOString() : value;
}

function filterParam(filter: string | readonly string[] | undefined): string | undefined {
  return typeof filter === 'string' || filter === undefined ? filter : filter.join(',');
}

function definedParams(
  params: Record<string, string | number | undefined>,
): Record<string, string | number> {
  const defined: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) defined[name] = value;
  return defined;
}

export function toJunctionError(error: unknown): JunctionError {
  if (error instanceof JunctionError) return error;
  if (isAxiosError(error)) {
    if (error.response) return errorFromResponse(error.response.status, error.response.data);
    return new JunctionError(`Junction is unreachable: ${error.message}`, 0, 'unreachable');
  }
  return new JunctionError(
    error instanceof Error ? error.message : String(error),
    0,
    'client_error',
  );
}

import axios, { type AxiosInstance, type AxiosRequestConfig, isAxiosError } from 'axios';
import { errorFromResponse, JunctionError } from './errors';
import type { Environment, UpdateEnvironmentInput } from './types';

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

  protected async request<T>(config: AxiosRequestConfig): Promise<T> {
    try {
      const response = await this.http.request<T>(config);
      return response.data;
    } catch (error) {
      throw toJunctionError(error);
    }
  }
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

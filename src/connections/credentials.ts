import { ENCRYPTION_CONTEXTS } from '../crypto/encryption-contexts';
import type { ProviderDefinition } from '../providers/provider.types';

/** What Junction keeps (encrypted) per auth mode. */
export interface OAuth2Credentials {
  readonly type: 'OAUTH2';
  readonly access_token: string;
  readonly refresh_token?: string;
  /** ISO timestamp; absent when the provider gave no expiry. */
  readonly expires_at?: string;
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface OAuth1Credentials {
  readonly type: 'OAUTH1';
  readonly oauth_token: string;
  readonly oauth_token_secret: string;
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface ApiKeyCredentials {
  readonly type: 'API_KEY';
  readonly apiKey: string;
}

export interface BasicCredentials {
  readonly type: 'BASIC';
  readonly username: string;
  readonly password: string;
}

export type StoredCredentials =
  OAuth2Credentials | OAuth1Credentials | ApiKeyCredentials | BasicCredentials;

export const CREDENTIALS_CONTEXT = ENCRYPTION_CONTEXTS.credentials;

/**
 * The credentials as the API returns them (spec 2.2): the refresh token only when asked, and the
 * expiry (with `raw.refresh_token`) only when a refresh token exists.
 */
export function credentialsView(
  credentials: StoredCredentials,
  includeRefreshToken: boolean,
): Record<string, unknown> {
  if (credentials.type !== 'OAUTH2') return { ...credentials };
  const hasRefreshToken = credentials.refresh_token !== undefined;
  const { refresh_token: rawRefreshToken, ...rawWithoutRefresh } = credentials.raw;
  const showRefresh = hasRefreshToken && includeRefreshToken;
  return {
    type: 'OAUTH2',
    access_token: credentials.access_token,
    ...(showRefresh ? { refresh_token: credentials.refresh_token } : {}),
    ...(hasRefreshToken && credentials.expires_at ? { expires_at: credentials.expires_at } : {}),
    raw:
      showRefresh && rawRefreshToken !== undefined
        ? { ...rawWithoutRefresh, refresh_token: rawRefreshToken }
        : rawWithoutRefresh,
  };
}

/** Seconds before expiry at which a token is refreshed, unless the provider says otherwise. */
export const DEFAULT_REFRESH_BUFFER_SECONDS = 15 * 60;

/** True when an OAuth 2 token should be refreshed at `now` (within the provider's buffer of its expiry). */
export function needsRefresh(
  credentials: StoredCredentials,
  provider: Pick<ProviderDefinition, 'token_expiry_buffer_seconds'>,
  now = Date.now(),
): boolean {
  if (
    credentials.type !== 'OAUTH2' ||
    credentials.refresh_token === undefined ||
    !credentials.expires_at
  ) {
    return false;
  }
  const bufferSeconds = provider.token_expiry_buffer_seconds ?? DEFAULT_REFRESH_BUFFER_SECONDS;
  return Date.parse(credentials.expires_at) - bufferSeconds * 1000 <= now;
}

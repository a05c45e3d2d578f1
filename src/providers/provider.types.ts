/** Authentication modes Junction stores credentials for. */
export const AUTH_MODES = ['OAUTH2', 'OAUTH1', 'API_KEY', 'BASIC'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/**
 * One provider of the catalog (or a custom provider). Strings marked "template" may contain
 * `${connectionConfig.<key>}` and, where noted, credential placeholders; see `interpolate`.
 */
export interface ProviderDefinition {
  /** Catalog key, e.g. `github`; lower-case letters, digits and dashes. */
  readonly name: string;
  readonly display_name: string;
  readonly auth_mode: AuthMode;
  /** OAuth 2 / OAuth 1: where the user authorizes (template). */
  readonly authorization_url?: string;
  /** OAuth 2 / OAuth 1: token endpoint (template). */
  readonly token_url?: string;
  /** OAuth 1: request-token endpoint. */
  readonly request_url?: string;
  /** OAuth 2: how the client authenticates to the token endpoint (default `body`). */
  readonly token_request_auth_method?: 'body' | 'basic';
  /** Extra parameters of the authorization request. */
  readonly authorization_params?: Readonly<Record<string, string>>;
  /** Extra parameters of the code exchange. */
  readonly token_params?: Readonly<Record<string, string>>;
  /** Extra parameters of the refresh request. */
  readonly refresh_params?: Readonly<Record<string, string>>;
  /** OAuth 2: seconds before expiry at which a token is refreshed (default 900). */
  readonly token_expiry_buffer_seconds?: number;
  /** Separator of scopes in requests (default a space). */
  readonly scope_separator?: string;
  /** `connection_config` keys a connection of this provider must have (used by templates). */
  readonly connection_config_keys?: readonly string[];
  readonly proxy?: {
    /** Base URL of the API (template). Absent: callers give `Base-Url-Override`. */
    readonly base_url?: string;
    /**
     * Headers added to proxied requests (templates; may use `${apiKey}`, `${accessToken}`,
     * `${username}`, `${password}`, `${base64(username:password)}`).
     */
    readonly headers?: Readonly<Record<string, string>>;
    /** Query parameters added to proxied requests (templates, as headers). */
    readonly query?: Readonly<Record<string, string>>;
    /** Response header that says when a rate limit resets (seconds or epoch seconds). */
    readonly rate_limit_reset_header?: string;
  };
  /** Link to the provider's API documentation. */
  readonly docs: string;
}

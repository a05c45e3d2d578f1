/**
 * The closed set of error codes Junction answers with, and the HTTP status of each.
 * Later domains add their codes here; the record type makes a missing status a compile error.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  action_failure: 400,
  invalid_json: 400,
  missing_api_key: 401,
  malformed_api_key: 401,
  unknown_api_key: 401,
  unknown_provider: 400,
  missing_base_url: 400,
  invalid_endpoint: 400,
  invalid_credentials: 400,
  invalid_cursor: 400,
  not_found: 404,
  integration_not_found: 404,
  connection_not_found: 404,
  sync_not_found: 404,
  action_not_found: 404,
  provider_not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  integration_already_exists: 409,
  integration_in_use: 409,
  confirmation_required: 409,
  payload_too_large: 413,
  metadata_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  script_failure: 422,
  unknown_integration: 422,
  provider_refused: 424,
  refresh_token_external_error: 424,
  rate_limited: 429,
  internal_error: 500,
  upstream_unreachable: 502,
  webhook_delivery_failed: 502,
  dependency_unavailable: 503,
  upstream_timeout: 504,
  action_timeout: 504,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  readonly path: string;
  readonly message: string;
}

export interface ErrorEnvelope {
  readonly error: {
    readonly code: ErrorCode;
    readonly message: string;
    readonly errors?: readonly FieldError[];
    readonly error_id?: string;
    /** Details from a third party, e.g. the provider's answer to a refused refresh. */
    readonly payload?: unknown;
  };
}

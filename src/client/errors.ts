export interface JunctionFieldError {
  readonly path: string;
  readonly message: string;
}

/** Thrown by every client method when Junction answers with an error (or cannot be reached). */
export class JunctionError extends Error {
  constructor(
    message: string,
    /** HTTP status; 0 when the service could not be reached. */
    readonly status: number,
    /** Stable snake_case code from the error envelope, e.g. `unknown_api_key`. */
    readonly code: string,
    readonly errors: readonly JunctionFieldError[] = [],
    readonly errorId?: string,
    /** Details from a third party or a script: a refused refresh's answer, an ActionError's payload. */
    readonly payload?: unknown,
  ) {
    super(message);
    this.name = 'JunctionError';
  }
}

interface Envelope {
  error?: {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    error_id?: unknown;
    payload?: unknown;
  };
}

export function errorFromResponse(status: number, body: unknown): JunctionError {
  const error = (body as Envelope | null)?.error;
  const code = typeof error?.code === 'string' ? error.code : `http_${status}`;
  const message =
    typeof error?.message === 'string' ? error.message : `Junction answered HTTP ${status}`;
  const errors = Array.isArray(error?.errors) ? (error.errors as JunctionFieldError[]) : [];
  const errorId = typeof error?.error_id === 'string' ? error.error_id : undefined;
  return new JunctionError(message, status, code, errors, errorId, error?.payload);
}

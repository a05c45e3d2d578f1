import type { ServiceTarget } from './arguments';

interface FieldError {
  readonly path: string;
  readonly message: string;
}

/** An error answer of the service (its `{ error: { code, message } }` envelope), or no answer. */
export class ServiceError extends Error {
  constructor(
    message: string,
    /** 0 when the service could not be reached. */
    readonly status: number,
    readonly code: string,
    readonly errors: readonly FieldError[] = [],
    readonly payload?: unknown,
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  /** The message with each field error on its own line. */
  describe(): string {
    const lines = [`${this.message} (${this.code}${this.status ? `, HTTP ${this.status}` : ''})`];
    for (const error of this.errors) lines.push(`  - ${error.path}: ${error.message}`);
    return lines.join('\n');
  }
}

/** POSTs JSON to the service with the secret key; the parsed answer, or a `ServiceError`. */
export async function postJson(
  target: ServiceTarget,
  path: string,
  body: unknown,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${target.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new ServiceError(
      `Cannot reach Junction at ${target.url}${cause ? `: ${cause}` : ''}`,
      0,
      'unreachable',
    );
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    parsed = undefined;
  }
  if (response.ok) return parsed;
  const envelope = (parsed as { error?: Record<string, unknown> } | undefined)?.error;
  if (!envelope || typeof envelope.message !== 'string') {
    throw new ServiceError(
      `Junction answered ${response.status} ${response.statusText} to ${path}`,
      response.status,
      'unexpected_response',
    );
  }
  throw new ServiceError(
    envelope.message,
    response.status,
    typeof envelope.code === 'string' ? envelope.code : 'unknown',
    Array.isArray(envelope.errors) ? (envelope.errors as FieldError[]) : [],
    envelope.payload,
  );
}

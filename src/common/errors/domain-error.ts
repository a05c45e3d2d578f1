import { type ErrorCode, type FieldError } from './error-codes';

/**
 * Base of every error a domain throws on purpose. Controllers and activities let it travel;
 * the HTTP filter maps its code to a status in one place.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: readonly FieldError[],
    readonly payload?: unknown,
    /** A status other than the code's own (an action's failure carries the status it chose). */
    readonly statusOverride?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidRequestError extends DomainError {
  constructor(message: string, errors?: readonly FieldError[]) {
    super('invalid_request', message, errors);
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string) {
    super('not_found', message);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class DependencyUnavailableError extends DomainError {
  constructor(message: string, errors?: readonly FieldError[]) {
    super('dependency_unavailable', message, errors);
  }
}

import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { InvalidRequestError } from '../errors/domain-error';
import type { FieldError } from '../errors/error-codes';

function flatten(errors: readonly ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ path, message }));
    return [...own, ...flatten(error.children ?? [], path)];
  });
}

/** DTO validation for every route: unknown fields are refused, every problem is listed. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => {
      const fieldErrors = flatten(errors);
      const summary = fieldErrors.map((error) => error.message).join('; ');
      return new InvalidRequestError(`Invalid request: ${summary}`, fieldErrors);
    },
  });
}

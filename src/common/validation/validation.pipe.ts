import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { InvalidRequestError } from '../errors/domain-error';
import type { FieldError } from '../errors/error-codes';

function flatten(errors: readonly ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ path, message }));
    return [...own, ...flatten(error.children ?? [], path)];
  });
}

const QUERIES_REMEMBERED_PER_DTO = 1_000;

/**
 * Nest's ValidationPipe, plus a memory of valid query strings per DTO class. A query is a few
 * strings that repeat from request to request (`?provider_config_key=github`), and validating it
 * with class-validator was a tenth of the CPU of a cached `GET /connection/:id`. Validation is a
 * pure function of (DTO class, input), so a query seen valid before is answered with a copy of
 * the instance built then. Invalid queries are never remembered: their errors are built afresh.
 */
class RequestValidationPipe extends ValidationPipe {
  private readonly validQueries = new WeakMap<object, LRUCache<string, object>>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const dto = metadata.metatype;
    if (metadata.type !== 'query' || !dto || !isFlatStringRecord(value)) {
      return super.transform(value, metadata);
    }
    let remembered = this.validQueries.get(dto);
    if (!remembered) {
      remembered = new LRUCache({ max: QUERIES_REMEMBERED_PER_DTO });
      this.validQueries.set(dto, remembered);
    }
    const key = JSON.stringify(value);
    const known = remembered.get(key);
    if (known) return copyOf(known);
    const validated: unknown = await super.transform(value, metadata);
    if (typeof validated === 'object' && validated !== null) remembered.set(key, copyOf(validated));
    return validated;
  }
}

/** A shallow copy with the same prototype (the DTO class), so no caller shares an instance. */
function copyOf(instance: object): object {
  const prototype = Object.getPrototypeOf(instance) as object | null;
  return Object.assign(Object.create(prototype) as object, instance);
}

/** A parsed query string: string (or string list) values only, so its JSON identifies it. */
function isFlatStringRecord(value: unknown): value is Record<string, string | string[]> {
  if (typeof value !== 'object' || value === null) return false;
  for (const entry of Object.values(value)) {
    if (
      typeof entry !== 'string' &&
      !(Array.isArray(entry) && entry.every((item) => typeof item === 'string'))
    )
      return false;
  }
  return true;
}

/** DTO validation for every route: unknown fields are refused, every problem is listed. */
export function createValidationPipe(): ValidationPipe {
  return new RequestValidationPipe({
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

import { ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { DomainError } from './domain-error';
import { ERROR_STATUS, type ErrorCode, type ErrorEnvelope, type FieldError } from './error-codes';

interface Translated {
  readonly status: number;
  readonly envelope: ErrorEnvelope;
}

function envelope(
  code: ErrorCode,
  message: string,
  errors?: readonly FieldError[],
  payload?: unknown,
): Translated {
  return {
    status: ERROR_STATUS[code],
    envelope: {
      error: {
        code,
        message,
        ...(errors && errors.length > 0 ? { errors } : {}),
        ...(payload === undefined ? {} : { payload }),
      },
    },
  };
}

/** Codes Fastify gives its own request errors (body parsing, limits, media types). */
const FASTIFY_ERRORS: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
};

function httpExceptionCode(status: number): ErrorCode {
  switch (status) {
    case 404:
      return 'route_not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    default:
      return status >= 500 ? 'internal_error' : 'invalid_request';
  }
}

function httpExceptionMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.map(String).join('; ');
  return exception.message;
}

/** Translates anything thrown while serving a request into the error envelope. */
export function translateError(exception: unknown): Translated | undefined {
  if (exception instanceof DomainError) {
    const translated = envelope(
      exception.code,
      exception.message,
      exception.errors,
      exception.payload,
    );
    const override = exception.statusOverride;
    return override !== undefined &&
      Number.isInteger(override) &&
      override >= 400 &&
      override <= 599
      ? { ...translated, status: override }
      : translated;
  }
  if (isDependencyTimeout(exception)) {
    return envelope(
      'dependency_unavailable',
      'Temporal did not answer in time; retry the request (what was done is kept)',
    );
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return envelope('route_not_found', httpExceptionMessage(exception));
    const code = httpExceptionCode(status);
    return { ...envelope(code, httpExceptionMessage(exception)), status };
  }
  const fastifyCode = (exception as { code?: unknown } | null)?.code;
  if (typeof fastifyCode === 'string' && fastifyCode in FASTIFY_ERRORS) {
    const code = FASTIFY_ERRORS[fastifyCode] ?? 'invalid_request';
    const message =
      code === 'invalid_json'
        ? `The request body is not valid JSON: ${(exception as Error).message}`
        : (exception as Error).message;
    return envelope(code, message);
  }
  if (exception instanceof SyntaxError && 'statusCode' in exception) {
    return envelope('invalid_json', `The request body is not valid JSON: ${exception.message}`);
  }
  const statusCode = (exception as { statusCode?: unknown } | null)?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return {
      ...envelope(httpExceptionCode(statusCode), (exception as Error).message),
      status: statusCode,
    };
  }
  return undefined;
}

/**
 * Anything thrown while serving a request as a status and envelope: domain and framework errors
 * by their code, the rest as a 500 whose error id is logged with the error.
 */
export function errorResponse(
  exception: unknown,
  logger: Logger,
  context: Readonly<Record<string, unknown>>,
): Translated {
  const translated = translateError(exception);
  if (translated) return translated;
  const errorId = randomUUID();
  logger.error({ err: exception, errorId, ...context }, 'Unhandled error while serving a request');
  return {
    status: 500,
    envelope: {
      error: {
        code: 'internal_error',
        message: `Internal error; quote error id ${errorId} to the operator.`,
        error_id: errorId,
      },
    },
  };
}

@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const { status, envelope } = errorResponse(exception, this.logger, {
      requestId: request.id,
      method: request.method,
      url: request.routeOptions?.url,
    });
    void http.getResponse<FastifyReply>().status(status).send(envelope);
  }
}

/** A Temporal call that timed out or found the server unavailable (gRPC 4 or 14). */
function isDependencyTimeout(exception: unknown): boolean {
  let current: unknown = exception;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth += 1) {
    const { code } = current as { code?: unknown };
    if (code === 4 || code === 14) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

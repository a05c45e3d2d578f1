import type { LoggerService, LogLevel } from '@nestjs/common';
import pino, { type Logger as Pino, type LevelWithSilent } from 'pino';
import type { AppConfig } from '../../config/app-config';

/** Secrets are cut from every log line, wherever they appear in a logged object. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'err.config.headers.Authorization',
  'err.config.headers.authorization',
];

/**
 * The process's one pino logger: JSON lines on stdout (pretty in a terminal when asked).
 *
 * Lines are written asynchronously: a line logged while the previous write is still under way
 * joins the next write, so under load many lines go out in one system call instead of one call
 * per line (which cost a fifth of a proxied request's CPU at LOG_LEVEL=info). Lines still
 * buffered when the process exits are flushed synchronously by pino's exit hook.
 */
export function createRootLogger(config: AppConfig): Pino {
  const options = {
    level: config.log.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: pino.stdSerializers.err },
  };
  if (config.log.pretty) return pino({ ...options, transport: { target: 'pino-pretty' } });
  return pino(options, pino.destination({ dest: 1, sync: false }));
}

const PINO_LEVEL: Record<LogLevel, LevelWithSilent> = {
  log: 'info',
  error: 'error',
  warn: 'warn',
  debug: 'debug',
  verbose: 'trace',
  fatal: 'fatal',
};

const STACK_LINE = /\n\s+at /;

/**
 * Nest's logger contract on pino. Nest's `Logger` calls `level(message, ...params)` and appends
 * the logger's context as the last parameter. A message that is an object becomes the line's
 * fields (an Error its `err`), and the next string parameter its message: so
 * `new Logger('Proxy').warn({ connection: 3 }, 'Refused')` writes
 * `{"context":"Proxy","connection":3,"msg":"Refused"}`. Nest's own exception logging,
 * `error(message, stack, context)`, becomes an `err` with that stack.
 */
export class AppLogger implements LoggerService {
  constructor(readonly pino: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: LogLevel, message: unknown, params: unknown[]): void {
    const method = PINO_LEVEL[level];
    if (!this.pino.isLevelEnabled(method)) return;
    const fields: Record<string, unknown> = {};
    const rest = [...params];
    const context = rest.length > 0 ? rest.pop() : undefined;
    if (context !== undefined) fields.context = context;

    let text: unknown = rest.find((param) => typeof param === 'string');
    if (message instanceof Error) {
      fields.err = message;
      text ??= message.message;
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(fields, message);
    } else if (
      level === 'error' &&
      rest.length === 1 &&
      typeof rest[0] === 'string' &&
      STACK_LINE.test(rest[0])
    ) {
      // Nest's exceptions handler: error(message, stack, context).
      const error = new Error(String(message));
      error.stack = rest[0];
      fields.err = error;
      text = String(message);
    } else {
      text = message;
    }
    this.pino[method](fields, typeof text === 'string' ? text : messageText(text));
  }
}

/** A message that is not a string, as text (JSON for plain values, never "[object Object]"). */
function messageText(value: unknown): string {
  if (value === undefined || value === null) return '';
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return Object.prototype.toString.call(value);
  }
}

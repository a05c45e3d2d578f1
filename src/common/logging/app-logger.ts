import type { LoggerService, LogLevel } from '@nestjs/common';
import { register as registerOnExit } from 'on-exit-leak-free';
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

/** Lines wait in memory until this many bytes are ready to go out in one write, or the flush. */
const LOG_BUFFER_BYTES = 4096;
/** A buffered line is written within this time even when no others follow. */
const LOG_FLUSH_MS = 50;

export interface Loggers {
  /** Every line but the request lines, with secrets redacted. */
  readonly root: Pino;
  /**
   * The request lines (id, method, URL, status, time; never headers or bodies): the same level
   * and destination without the redaction pass, which cost a line as much as writing it.
   */
  readonly requests: Pino;
}

/**
 * The process's pino loggers: JSON lines on stdout (pretty in a terminal when asked).
 *
 * Lines are written in batches: they gather in memory until 4 KiB are ready or 50 ms have passed,
 * then go out in one synchronous write. Under load that is one system call for a dozen lines
 * rather than one per line (writing lines one by one cost a fifth of a proxied request's CPU at
 * LOG_LEVEL=info); pino's asynchronous mode batches too, but hands every write to libuv's
 * thread pool and measures the pending text again for each line it adds. Lines still buffered
 * when the process exits are written by an exit hook registered here (pino registers one only
 * for its asynchronous destinations).
 */
export function createLoggers(config: AppConfig): Loggers {
  const options = {
    level: config.log.level,
    serializers: { err: pino.stdSerializers.err },
  };
  const redact = { paths: REDACTED_PATHS, censor: '[redacted]' };
  if (config.log.pretty) {
    const root = pino({ ...options, redact, transport: { target: 'pino-pretty' } });
    return { root, requests: root };
  }
  const destination = pino.destination({
    dest: 1,
    sync: true,
    minLength: LOG_BUFFER_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
  registerOnExit(destination, (stream) => stream.flushSync());
  return {
    root: pino({ ...options, redact }, destination),
    requests: pino(options, destination),
  };
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
  constructor(
    readonly pino: Pino,
    /** For the request lines only (see Loggers). */
    readonly requests: Pino = pino,
  ) {}

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

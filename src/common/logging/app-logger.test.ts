import { Logger } from '@nestjs/common';
import pino from 'pino';
import { Writable } from 'node:stream';
import { AppLogger, REDACTED_PATHS } from './app-logger';

/** An AppLogger writing into an array of parsed lines (synchronously). */
function capture(): { logger: AppLogger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const root = pino(
    { level: 'debug', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    sink,
  );
  return { logger: new AppLogger(root), lines };
}

describe('AppLogger (Nest on pino)', () => {
  it('writes an object message as fields, the next string as msg, the context as context', () => {
    const { logger, lines } = capture();
    logger.warn({ connection: 3 }, 'Refused', 'CredentialRefresh');
    expect(lines[0]).toMatchObject({
      level: 40,
      context: 'CredentialRefresh',
      connection: 3,
      msg: 'Refused',
    });
  });

  it('writes Nest-style string messages and exception stacks', () => {
    const { logger, lines } = capture();
    logger.log('Nest application successfully started', 'NestApplication');
    logger.error('boom', 'Error: boom\n    at somewhere (file.js:1:1)', 'ExceptionsHandler');
    expect(lines[0]).toMatchObject({
      level: 30,
      context: 'NestApplication',
      msg: 'Nest application successfully started',
    });
    expect(lines[1]).toMatchObject({ level: 50, context: 'ExceptionsHandler', msg: 'boom' });
    expect((lines[1]?.err as { stack?: string }).stack).toContain('at somewhere');
  });

  it('serves as the logger of Nest Logger instances, below its level writes nothing', () => {
    const { logger, lines } = capture();
    Logger.overrideLogger(logger);
    try {
      new Logger('Proxy').verbose({ detail: 1 }, 'trace line');
      new Logger('Proxy').debug({ detail: 2 }, 'debug line');
    } finally {
      Logger.overrideLogger(false);
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 20, context: 'Proxy', detail: 2, msg: 'debug line' });
  });

  it('redacts credentials in logged request and error objects', () => {
    const { logger, lines } = capture();
    logger.error(
      { err: { message: 'x', config: { headers: { Authorization: 'Bearer secret-1' } } } },
      'Token call failed',
      'OAuth2',
    );
    logger.log({ req: { headers: { authorization: 'Bearer secret-2' } } }, 'request', 'Http');
    const written = JSON.stringify(lines);
    expect(written).not.toContain('secret-1');
    expect(written).not.toContain('secret-2');
  });
});

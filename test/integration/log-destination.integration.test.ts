import { spawn } from 'node:child_process';
import { join } from 'node:path';

const LOGGER = join(__dirname, '..', '..', 'dist', 'src', 'common', 'logging', 'app-logger.js');

/**
 * Runs `script` in a Node process that has `loggers` (createLoggers at LOG_LEVEL=info, JSON on
 * stdout); resolves with its stdout lines and when each arrived (ms after the start).
 */
function runWithLoggers(
  script: string,
): Promise<Array<{ at: number; line: Record<string, unknown> }>> {
  const program = `
    const { createLoggers } = require(${JSON.stringify(LOGGER)});
    const loggers = createLoggers({ log: { level: 'info', pretty: false } });
    ${script}
  `;
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['-e', program], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Array<{ at: number; line: Record<string, unknown> }> = [];
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    pending += chunk;
    const complete = pending.split('\n');
    pending = complete.pop() ?? '';
    for (const text of complete)
      lines.push({
        at: performance.now() - startedAt,
        line: JSON.parse(text) as Record<string, unknown>,
      });
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(lines);
      else reject(new Error(`the logging process exited with ${code}`));
    });
  });
}

describe('log destination (buffered stdout)', () => {
  it('writes a lone line within the flush interval, while the process keeps running', async () => {
    const lines = await runWithLoggers(`
      loggers.root.info('lone line');
      // Stay alive well past the flush interval; 'done' goes out at exit at the latest.
      setTimeout(() => loggers.root.info('done'), 1500);
      setTimeout(() => process.exit(0), 1600);
    `);
    const lone = lines.find((entry) => entry.line.msg === 'lone line');
    expect(lone).toBeDefined();
    // Process start-up takes part of this; the 1.5 s the process stays alive must not.
    expect(lone!.at).toBeLessThan(lines.find((entry) => entry.line.msg === 'done')!.at - 1000);
  });

  it('writes the lines still buffered when the process exits', async () => {
    const lines = await runWithLoggers(`
      for (let i = 0; i < 5; i++) loggers.requests.info({ req: { id: 'r' + i } }, 'request');
      loggers.root.warn('last words');
      process.exit(0);
    `);
    expect(lines.map((entry) => entry.line.msg)).toEqual([
      'request',
      'request',
      'request',
      'request',
      'request',
      'last words',
    ]);
  });

  it('redacts secrets in the root logger; the request logger writes its lines as given', async () => {
    const lines = await runWithLoggers(`
      loggers.root.info({ req: { headers: { authorization: 'Bearer s3cret' } } }, 'root');
      loggers.requests.info({ req: { id: 'a', method: 'GET', url: '/proxy/x' } }, 'request');
      process.exit(0);
    `);
    expect(JSON.stringify(lines)).not.toContain('s3cret');
    expect(lines[0]!.line).toMatchObject({ req: { headers: { authorization: '[redacted]' } } });
    expect(lines[1]!.line).toMatchObject({ req: { id: 'a', method: 'GET', url: '/proxy/x' } });
  });
});

import type { Connection } from '@temporalio/client';
import { QuietConnection } from '../../src/temporal/quiet-connection';
import { harnessValue } from '../harness/state';

/** Node 20's AsyncLocalStorage keeps whether it is entered (and its async hook on) here. */
const isEnabled = (connection: Connection): boolean =>
  (connection.callContextStorage as unknown as { enabled: boolean }).enabled;

describe('QuietConnection (Temporal client connection)', () => {
  let connection: Connection;

  beforeAll(async () => {
    connection = await QuietConnection.connect({ address: harnessValue('temporalAddress') });
  });
  afterAll(() => connection.close());

  it('leaves its call-context storage off after connecting', () => {
    expect(isEnabled(connection)).toBe(false);
  });

  it('still applies a deadline to the call, and turns the storage off again', async () => {
    await expect(
      connection.withDeadline(Date.now() - 1_000, () =>
        connection.workflowService.getSystemInfo({}),
      ),
    ).rejects.toThrow(/deadline/i);
    expect(isEnabled(connection)).toBe(false);

    const info = await connection.withDeadline(Date.now() + 10_000, () =>
      connection.workflowService.getSystemInfo({}),
    );
    expect(info.serverVersion).toMatch(/\d/);
    expect(isEnabled(connection)).toBe(false);
  });

  it('still applies an abort signal to the call', async () => {
    const controller = new AbortController();
    // A long poll on a queue no worker serves would wait out its deadline; the signal ends it.
    const poll = connection.withDeadline(Date.now() + 60_000, () =>
      connection.withAbortSignal(controller.signal, () =>
        connection.workflowService.pollWorkflowTaskQueue({
          namespace: 'default',
          taskQueue: { name: `quiet-connection-${Date.now()}` },
        }),
      ),
    );
    setTimeout(() => controller.abort(), 200);
    const startedAt = Date.now();
    await expect(poll).rejects.toThrow(/cancel|abort/i);
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(isEnabled(connection)).toBe(false);
  });

  it('keeps overlapping calls apart: each gets its own deadline', async () => {
    const results = await Promise.allSettled([
      connection.withDeadline(Date.now() + 10_000, () =>
        connection.workflowService.getSystemInfo({}),
      ),
      connection.withDeadline(Date.now() - 1_000, () =>
        connection.workflowService.getSystemInfo({}),
      ),
      connection.withDeadline(Date.now() + 10_000, () =>
        connection.workflowService.getSystemInfo({}),
      ),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(isEnabled(connection)).toBe(false);
  });
});

import { Client as PgClient } from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Junction } from '../../src/client';
import type { JunctionProcess } from '../harness/junction-process';
import { startApiBeside, startTestApp, type TestApp } from '../harness/test-app';

/**
 * Each process keeps the connections it read in memory (CONNECTION_CACHE_SIZE). These tests hold
 * it to its promise: a change made anywhere (this process, another API process, plain SQL) is
 * what the next read returns, at once in the process that made it and within a notification
 * round trip elsewhere, also after the listening connection was cut.
 */
describe('the connection cache across processes', () => {
  let app: TestApp;
  let second: JunctionProcess;
  let other: Junction;
  let sql: PgClient;

  const tokenOf = async (client: Junction, id: string): Promise<unknown> => {
    const connection = await client.getConnection('gh', id);
    return connection.credentials.type === 'OAUTH2' ? connection.credentials.access_token : null;
  };

  /** Polls `read` until it returns `wanted`; the time it took, in ms (throws after 2 s). */
  const seenWithin = async (read: () => Promise<unknown>, wanted: unknown): Promise<number> => {
    const started = performance.now();
    for (;;) {
      const value = await read().catch((error: { status?: number }) => `status ${error.status}`);
      if (value === wanted) return performance.now() - started;
      if (performance.now() - started > 2_000)
        throw new Error(`still ${String(value)} instead of ${String(wanted)} after 2 s`);
      await sleep(5);
    }
  };

  const importToken = (id: string, token: string) =>
    app.client().importConnection({
      provider_config_key: 'gh',
      connection_id: id,
      access_token: token,
      refresh_token: `rt-${id}`,
      expires_at: new Date(Date.now() + 24 * 3600 * 1000).toISOString(),
    });

  beforeAll(async () => {
    app = await startTestApp();
    ({ process: second, client: other } = await startApiBeside(app));
    await app.client().createIntegration({
      provider: 'github',
      provider_config_key: 'gh',
      oauth_client_id: 'id',
      oauth_client_secret: 'secret',
    });
    sql = new PgClient({ connectionString: app.database.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql.end();
    await second.stop('SIGTERM');
    await app.stop();
  });

  it('reads its own writes at once: a re-import is what the next read of the same process returns', async () => {
    for (let round = 1; round <= 20; round += 1) {
      await importToken('own', `own-${round}`);
      expect(await tokenOf(app.client(), 'own')).toBe(`own-${round}`);
    }
  });

  it('sees a re-import, a metadata change and a deletion made through another API process', async () => {
    await importToken('shared', 'first');
    expect(await tokenOf(other, 'shared')).toBe('first'); // now cached in the second process
    expect(await tokenOf(other, 'shared')).toBe('first');

    await importToken('shared', 'second');
    expect(await seenWithin(() => tokenOf(other, 'shared'), 'second')).toBeLessThan(500);

    await app.client().setMetadata('gh', 'shared', { plan: 'pro' });
    const metadataOf = async () => (await other.getConnection('gh', 'shared')).metadata?.plan;
    expect(await seenWithin(metadataOf, 'pro')).toBeLessThan(500);

    await app.client().deleteConnection('gh', 'shared');
    expect(await seenWithin(() => tokenOf(other, 'shared'), 'status 404')).toBeLessThan(500);
  });

  it('sees a change made with plain SQL, and one made while its listening connection was cut', async () => {
    await importToken('sql', 'before');
    expect(await tokenOf(other, 'sql')).toBe('before');
    const metadataOf = async () => (await other.getConnection('gh', 'sql')).metadata?.step;

    await sql.query(`UPDATE connections SET metadata = '{"step": 1}' WHERE connection_id = 'sql'`);
    expect(await seenWithin(metadataOf, 1)).toBeLessThan(500);

    // Cut every listening connection (both processes'), then change the row while they are down.
    const cut = await sql.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = 'junction-changes' AND datname = current_database()`,
    );
    expect(cut.rowCount).toBe(2);
    await sql.query(`UPDATE connections SET metadata = '{"step": 2}' WHERE connection_id = 'sql'`);
    expect(await metadataOf()).toBe(2);

    // Both reconnect and go on receiving notifications.
    await seenWithin(async () => {
      const { rows } = await sql.query<{ count: string }>(
        `SELECT count(*) FROM pg_stat_activity
         WHERE application_name = 'junction-changes' AND datname = current_database()`,
      );
      return Number(rows[0]?.count);
    }, 2);
    expect(await metadataOf()).toBe(2);
    await sql.query(`UPDATE connections SET metadata = '{"step": 3}' WHERE connection_id = 'sql'`);
    expect(await seenWithin(metadataOf, 3)).toBeLessThan(500);
  });

  it('drops the connections of an integration that changes', async () => {
    await importToken('integration', 'tok');
    expect((await other.getConnection('gh', 'integration')).provider).toBe('github');
    await app.client().updateIntegration({
      provider: 'gitlab',
      provider_config_key: 'gh',
      oauth_client_id: 'id',
      oauth_client_secret: 'secret',
    });
    const providerOf = async () => (await other.getConnection('gh', 'integration')).provider;
    expect(await seenWithin(providerOf, 'gitlab')).toBeLessThan(500);
    expect((await app.client().getConnection('gh', 'integration')).provider).toBe('gitlab');
  });
});

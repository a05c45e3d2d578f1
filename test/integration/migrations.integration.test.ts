import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { MIGRATIONS } from '../../src/database/migrations';
import { migrateUnderLock } from '../../src/database/schema-migrator';
import { createTestDatabase, type TestDatabase } from '../harness/databases';

describe('start-up migrations', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(false);
  });
  afterAll(() => database.drop());

  it('lets replicas starting together take turns: every migration applied exactly once', async () => {
    const replicas = Array.from(
      { length: 4 },
      () => new DataSource(dataSourceOptions({ url: database.url, poolSize: 3 })),
    );
    await Promise.all(replicas.map((replica) => replica.initialize()));
    try {
      const order: string[] = [];
      await Promise.all(
        replicas.map((replica, index) =>
          migrateUnderLock(replica, async () => {
            order.push(`start ${index}`);
            await new Promise((resolve) => setTimeout(resolve, 20));
            order.push(`end ${index}`);
          }),
        ),
      );
      // Critical sections never interleave.
      for (let step = 0; step < order.length; step += 2) {
        expect(order[step]?.replace('start', '')).toBe(order[step + 1]?.replace('end', ''));
      }
      const applied: Array<{ name: string }> = await replicas[0]!.query(
        'SELECT name FROM typeorm_migrations ORDER BY id',
      );
      expect(applied.map((row) => row.name)).toEqual(MIGRATIONS.map((migration) => migration.name));
    } finally {
      await Promise.all(replicas.map((replica) => replica.destroy()));
    }
  });
});

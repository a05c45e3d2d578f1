import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';

/** Any fixed number; every Junction process that migrates takes this advisory lock first. */
const MIGRATION_LOCK_KEY = 7_433_181_002;

/**
 * Runs pending migrations, then `afterMigrate`, while holding a session advisory lock so that
 * replicas starting together take turns instead of racing.
 */
export async function migrateUnderLock(
  dataSource: DataSource,
  afterMigrate: () => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  const logger = new Logger('SchemaMigrator');
  const singleConnection = dataSource.driver.options.extra?.poolSize === 1;
  if (singleConnection) {
    // Embedded PostgreSQL serves one process through one connection: nobody to race.
    await runMigrations(dataSource, logger);
    await afterMigrate();
    return;
  }
  const lockRunner = dataSource.createQueryRunner();
  await lockRunner.connect();
  try {
    await lockRunner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await runMigrations(dataSource, logger);
    await afterMigrate();
  } finally {
    await lockRunner
      .query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
      .catch(() => undefined);
    await lockRunner.release();
  }
}

async function runMigrations(dataSource: DataSource, logger: Logger): Promise<void> {
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  for (const migration of applied) logger.log(`Applied migration ${migration.name}`);
}

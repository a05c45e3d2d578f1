import type { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations';

export interface DatabaseTarget {
  readonly url?: string;
  readonly embedded?: PGlite;
  readonly poolSize: number;
}

/** Options shared by the Nest module and the operator commands; never `synchronize`. */
export function dataSourceOptions(target: DatabaseTarget): DataSourceOptions {
  const common = {
    type: 'postgres' as const,
    synchronize: false,
    migrationsRun: false,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    uuidExtension: 'pgcrypto' as const,
  };
  if (target.embedded) {
    // PGlite is one connection: TypeORM must never ask for a second one.
    return { ...common, poolSize: 1, extra: createPgConfig(target.embedded) };
  }
  if (!target.url) throw new Error('A database URL or an embedded database is required');
  return { ...common, url: target.url, poolSize: target.poolSize, applicationName: 'junction' };
}

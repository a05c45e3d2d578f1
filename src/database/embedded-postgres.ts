import { PGlite } from '@electric-sql/pglite';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/** The local mode's PostgreSQL: PGlite with its files under the data folder. */
export async function openEmbeddedPostgres(dataDir: string): Promise<PGlite> {
  const directory = join(dataDir, 'postgres');
  await mkdir(directory, { recursive: true });
  const database = await PGlite.create(directory);
  return database;
}

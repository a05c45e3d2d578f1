import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { harnessValue } from './state';

export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

async function admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: harnessValue('postgresUrl') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database for one test file, cloned from the migrated template (milliseconds). */
export async function createTestDatabase(migrated = true): Promise<TestDatabase> {
  const name = `junction_test_${randomBytes(6).toString('hex')}`;
  const template = migrated ? harnessValue('templateDatabase') : 'template0';
  await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  return {
    name,
    url: databaseUrl(harnessValue('postgresUrl'), name),
    drop: () =>
      admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

/** Reads a test database directly, as an operator with psql would. */
export async function queryDatabase<T>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

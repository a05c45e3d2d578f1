import 'reflect-metadata';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { startDevServer } from '../../src/temporal/dev-server';
import { databaseUrl } from './databases';
import { startPostgresCluster } from './postgres-cluster';
import { freePort } from './ports';
import { HARNESS_ENV } from './state';

const TEMPLATE = `junction_template_${process.pid}`;

/**
 * Starts what integration tests need, unless given: PostgreSQL (`DATABASE_URL`) and Temporal
 * (`TEMPORAL_ADDRESS`). Builds a migrated template database that every test file clones.
 */
export default async function globalSetup(): Promise<void> {
  const stops: Array<() => Promise<void> | void> = [];
  (globalThis as { junctionHarnessStops?: typeof stops }).junctionHarnessStops = stops;

  let postgresUrl = process.env.DATABASE_URL;
  if (!postgresUrl) {
    const cluster = await startPostgresCluster();
    stops.push(() => cluster.stop());
    postgresUrl = cluster.url;
  }
  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (!temporalAddress) {
    const server = await startDevServer({
      cliPath: process.env.TEMPORAL_CLI_PATH,
      databaseFile: join(mkdtempSync(join(tmpdir(), 'junction-test-temporal-')), 'temporal.sqlite'),
      port: await freePort(),
      uiPort: await freePort(),
    });
    stops.push(() => server.stop());
    temporalAddress = server.address;
  }

  const admin = new DataSource({ type: 'postgres', url: postgresUrl });
  await admin.initialize();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE}`);
  await admin.query(`CREATE DATABASE ${TEMPLATE}`);
  await admin.destroy();
  stops.push(async () => {
    const cleanup = new DataSource({ type: 'postgres', url: postgresUrl });
    await cleanup.initialize();
    await cleanup.query(`DROP DATABASE IF EXISTS ${TEMPLATE}`);
    await cleanup.destroy();
  });
  const template = new DataSource(
    dataSourceOptions({ url: databaseUrl(postgresUrl, TEMPLATE), poolSize: 1 }),
  );
  await template.initialize();
  await template.runMigrations();
  await template.destroy();

  process.env[HARNESS_ENV.postgresUrl] = postgresUrl;
  process.env[HARNESS_ENV.templateDatabase] = TEMPLATE;
  process.env[HARNESS_ENV.temporalAddress] = temporalAddress;
}

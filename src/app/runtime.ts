import type { PGlite } from '@electric-sql/pglite';
import { join } from 'node:path';
import type { AppConfig } from '../config/app-config';
import { openEmbeddedPostgres } from '../database/embedded-postgres';
import { localEncryptionKeys } from './local-files';
import { type DevServer, startDevServer } from '../temporal/dev-server';

/** Where this process finds PostgreSQL and Temporal: configured, or started here (local mode). */
export interface Runtime {
  readonly databaseUrl?: string;
  readonly embeddedDatabase?: PGlite;
  readonly temporalAddress: string;
  readonly encryptionKeys: string;
  readonly temporalUiUrl?: string;
  readonly devServer?: DevServer;
  close(): Promise<void>;
}

export async function prepareRuntime(config: AppConfig): Promise<Runtime> {
  const encryptionKeys = config.encryptionKeys ?? (await localEncryptionKeys(config.dataDir));
  const embeddedDatabase = config.database.url
    ? undefined
    : await openEmbeddedPostgres(config.dataDir);
  let devServer: DevServer | undefined;
  try {
    devServer = config.temporal.address
      ? undefined
      : await startDevServer({
          cliPath: config.temporal.cliPath,
          databaseFile: join(config.dataDir, 'temporal.sqlite'),
          port: config.temporal.devPort,
          uiPort: config.temporal.devUiPort,
          namespace: config.temporal.namespace,
        });
  } catch (error) {
    await embeddedDatabase?.close();
    throw error;
  }
  const temporalAddress = config.temporal.address ?? devServer?.address;
  if (!temporalAddress) throw new Error('No Temporal address');
  return {
    databaseUrl: config.database.url,
    embeddedDatabase,
    temporalAddress,
    encryptionKeys,
    temporalUiUrl: config.temporal.uiUrl ?? devServer?.uiUrl,
    devServer,
    async close() {
      await devServer?.stop();
      await embeddedDatabase?.close();
    },
  };
}

import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AppConfig } from '../config/app-config';
import { ReencryptionService } from '../crypto/reencryption.service';
import { openEmbeddedPostgres } from '../database/embedded-postgres';
import type { EnvironmentName } from '../environments/entities/environment.entity';
import { EnvironmentsService } from '../environments/environments.service';
import { claimDataDir, localEncryptionKeys, writeDevKeyFile } from './local-files';
import { OperatorModule } from './operator.module';

/** Runs an operator command against the configured (or embedded) database. */
async function withOperatorContext<T>(
  config: AppConfig,
  work: (context: INestApplicationContext, embedded: boolean) => Promise<T>,
): Promise<T> {
  const releaseDataDir = config.database.url ? undefined : await claimDataDir(config.dataDir);
  const embedded = config.database.url ? undefined : await openEmbeddedPostgres(config.dataDir);
  const encryptionKeys = config.encryptionKeys ?? (await localEncryptionKeys(config.dataDir));
  const context = await NestFactory.createApplicationContext(
    OperatorModule.forRoot(
      config,
      { url: config.database.url, embedded, poolSize: 1 },
      encryptionKeys,
    ),
    { logger: ['error'], abortOnError: false },
  );
  try {
    return await work(context, embedded !== undefined);
  } finally {
    await context.close();
    await embedded?.close();
    await releaseDataDir?.();
  }
}

/** `junction keys rotate <env>`: the old key stops working (within the auth cache's few seconds). */
export function rotateSecretKey(config: AppConfig, environment: EnvironmentName): Promise<number> {
  return withOperatorContext(config, async (context, embedded) => {
    const secretKey = await context.get(EnvironmentsService).rotateSecretKey(environment);
    if (embedded && environment === 'dev') await writeDevKeyFile(config.dataDir, secretKey);
    process.stdout.write(`New ${environment} secret key: ${secretKey}\n`);
    return 0;
  });
}

/** `junction keys reencrypt`: every encrypted value moves under the first key of ENCRYPTION_KEYS. */
export function reencryptSecrets(config: AppConfig): Promise<number> {
  return withOperatorContext(config, async (context) => {
    const count = await context.get(ReencryptionService).reencryptAll();
    process.stdout.write(
      `Re-encrypted ${count} value(s) under the active key; older keys can now be removed.\n`,
    );
    return 0;
  });
}

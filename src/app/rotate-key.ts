import { NestFactory } from '@nestjs/core';
import type { AppConfig } from '../config/app-config';
import { openEmbeddedPostgres } from '../database/embedded-postgres';
import type { EnvironmentName } from '../environments/entities/environment.entity';
import { EnvironmentsService } from '../environments/environments.service';
import { claimDataDir, writeDevKeyFile } from './local-files';
import { OperatorModule } from './operator.module';

/** `junction keys rotate <env>`: the old key stops working (within the auth cache's few seconds). */
export async function rotateSecretKey(
  config: AppConfig,
  environment: EnvironmentName,
): Promise<number> {
  const releaseDataDir = config.database.url ? undefined : await claimDataDir(config.dataDir);
  const embedded = config.database.url ? undefined : await openEmbeddedPostgres(config.dataDir);
  const context = await NestFactory.createApplicationContext(
    OperatorModule.forRoot(config, { url: config.database.url, embedded, poolSize: 1 }),
    { logger: ['error'], abortOnError: false },
  );
  try {
    const secretKey = await context.get(EnvironmentsService).rotateSecretKey(environment);
    if (embedded && environment === 'dev') await writeDevKeyFile(config.dataDir, secretKey);
    process.stdout.write(`New ${environment} secret key: ${secretKey}\n`);
    return 0;
  } finally {
    await context.close();
    await embedded?.close();
    await releaseDataDir?.();
  }
}

import type { PGlite } from '@electric-sql/pglite';
import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ConnectionsModule } from '../connections/connections.module';
import { EnvironmentVariablesModule } from '../environment-variables/environment-variables.module';
import { IntegrationsModule } from '../integrations/integrations.module';
import { ProvidersModule } from '../providers/providers.module';
import { ProxyModule } from '../proxy/proxy.module';
import { RecordsModule } from '../records/records.module';
import { ActionsModule } from '../actions/actions.module';
import { SyncsModule } from '../syncs/syncs.module';
import { ScriptsModule } from '../scripts/scripts.module';
import { LoggingModule } from '../common/logging/logging.module';
import type { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { CryptoModule } from '../crypto/crypto.module';
import { DatabaseModule } from '../database/database.module';
import { EnvironmentsModule } from '../environments/environments.module';
import { HealthModule } from '../health/health.module';
import { MetricsModule } from '../metrics/metrics.module';
import { TemporalModule } from '../temporal/temporal.module';
import { TemporalWorkerService } from '../temporal/temporal-worker.service';
import { WebhooksModule } from '../webhooks/webhooks.module';

/** What one process runs, with the addresses the runtime resolved (embedded or configured). */
export interface AppShape {
  readonly config: AppConfig;
  readonly http: boolean;
  readonly worker: boolean;
  readonly databaseUrl?: string;
  readonly embeddedDatabase?: PGlite;
  readonly temporalAddress: string;
  readonly encryptionKeys: string;
}

/** The one composition root behind all three entry modes. */
@Module({})
export class AppModule {
  static forRoot(shape: AppShape): DynamicModule {
    const workerProviders: Provider[] = shape.worker ? [TemporalWorkerService] : [];
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(shape.config),
        LoggingModule.forRoot(shape.config),
        DatabaseModule.forRoot({
          url: shape.databaseUrl,
          embedded: shape.embeddedDatabase,
          poolSize: shape.config.database.poolSize,
        }),
        TemporalModule.forRoot({
          address: shape.temporalAddress,
          namespace: shape.config.temporal.namespace,
          taskQueue: shape.config.temporal.taskQueue,
        }),
        CryptoModule.forRoot(shape.encryptionKeys),
        MetricsModule,
        EnvironmentsModule,
        ProvidersModule.forRoot(shape.config.providersFile),
        IntegrationsModule,
        ConnectionsModule,
        EnvironmentVariablesModule,
        ProxyModule,
        RecordsModule,
        SyncsModule,
        ActionsModule,
        ScriptsModule,
        WebhooksModule,
        ...(shape.http ? [AuthModule, HealthModule] : []),
      ],
      providers: workerProviders,
    };
  }
}

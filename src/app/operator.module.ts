import { type DynamicModule, Module } from '@nestjs/common';
import { LoggingModule } from '../common/logging/logging.module';
import type { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { CryptoModule } from '../crypto/crypto.module';
import { ReencryptionRepository } from '../crypto/reencryption.repository';
import { ReencryptionService } from '../crypto/reencryption.service';
import { DatabaseModule, type DatabaseModuleOptions } from '../database/database.module';
import { EnvironmentsModule } from '../environments/environments.module';

/** The slice of the application that operator commands need: configuration and the database. */
@Module({})
export class OperatorModule {
  static forRoot(
    config: AppConfig,
    database: DatabaseModuleOptions,
    encryptionKeys: string,
  ): DynamicModule {
    return {
      module: OperatorModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config),
        DatabaseModule.forRoot(database),
        EnvironmentsModule,
        CryptoModule.forRoot(encryptionKeys),
      ],
      providers: [ReencryptionRepository, ReencryptionService],
    };
  }
}

import { type DynamicModule, Module } from '@nestjs/common';
import { LoggingModule } from '../common/logging/logging.module';
import type { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule, type DatabaseModuleOptions } from '../database/database.module';
import { EnvironmentsModule } from '../environments/environments.module';

/** The slice of the application that operator commands need: configuration and the database. */
@Module({})
export class OperatorModule {
  static forRoot(config: AppConfig, database: DatabaseModuleOptions): DynamicModule {
    return {
      module: OperatorModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(config),
        DatabaseModule.forRoot(database),
        EnvironmentsModule,
      ],
    };
  }
}

import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { AppLogger, createLoggers } from './app-logger';

/** The process's logger (`AppLogger`, on pino), for Nest, the request log and the services. */
@Global()
@Module({})
export class LoggingModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: LoggingModule,
      providers: [
        {
          provide: AppLogger,
          useFactory: () => {
            const { root, requests } = createLoggers(config);
            return new AppLogger(root, requests);
          },
        },
      ],
      exports: [AppLogger],
    };
  }
}

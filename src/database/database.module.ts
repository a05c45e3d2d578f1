import type { PGlite } from '@electric-sql/pglite';
import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChangeFeed } from './change-feed';
import { dataSourceOptions } from './data-source-options';

export interface DatabaseModuleOptions {
  readonly url?: string;
  readonly embedded?: PGlite;
  readonly poolSize: number;
}

@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      providers: [
        {
          provide: ChangeFeed,
          useFactory: () =>
            new ChangeFeed(options.embedded ? { embedded: true } : { listen: options.url ?? '' }),
        },
      ],
      exports: [ChangeFeed],
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(options),
          autoLoadEntities: true,
          // Start-up fails fast on a wrong URL instead of retrying for minutes.
          retryAttempts: 2,
          retryDelay: 1000,
        }),
      ],
    };
  }
}

import { type DynamicModule, Global, Module } from '@nestjs/common';
import { TemporalClientService } from './temporal-client.service';
import { TEMPORAL_OPTIONS, type TemporalModuleOptions } from './temporal.options';

/** Provides the Temporal client to services of the API and the worker alike. */
@Global()
@Module({})
export class TemporalModule {
  static forRoot(options: TemporalModuleOptions): DynamicModule {
    return {
      module: TemporalModule,
      providers: [{ provide: TEMPORAL_OPTIONS, useValue: options }, TemporalClientService],
      exports: [TemporalClientService, TEMPORAL_OPTIONS],
    };
  }
}

import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CustomProvidersRepository } from './custom-providers.repository';
import { CustomProviderEntity } from './entities/custom-provider.entity';
import { ProviderCatalog } from './providers.catalog';
import { ProvidersController } from './providers.controller';
import { ProvidersService } from './providers.service';

@Module({})
export class ProvidersModule {
  static forRoot(providersFile: string | undefined): DynamicModule {
    return {
      module: ProvidersModule,
      imports: [TypeOrmModule.forFeature([CustomProviderEntity])],
      controllers: [ProvidersController],
      providers: [
        { provide: ProviderCatalog, useFactory: () => new ProviderCatalog(providersFile) },
        CustomProvidersRepository,
        ProvidersService,
      ],
      exports: [ProvidersService, ProviderCatalog],
      global: true,
    };
  }
}

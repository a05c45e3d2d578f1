import { Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { ChangeFeed } from '../database/change-feed';
import { IntegrationsModule } from '../integrations/integrations.module';
import { ConnectionCache } from './connection-cache';
import { ConnectionLifecycle } from './connection-lifecycle';
import { ConnectionsController } from './connections.controller';
import { ConnectionsRepository } from './connections.repository';
import { ConnectionsService } from './connections.service';
import { CredentialRefreshService } from './credential-refresh.service';
import { OAuth2TokenClient } from './oauth2-token-client';

@Module({
  imports: [IntegrationsModule],
  controllers: [ConnectionsController],
  providers: [
    {
      provide: ConnectionCache,
      useFactory: (feed: ChangeFeed, config: AppConfig) =>
        new ConnectionCache(feed, config.credentials.connectionCacheSize),
      inject: [ChangeFeed, APP_CONFIG],
    },
    ConnectionLifecycle,
    ConnectionsRepository,
    ConnectionsService,
    CredentialRefreshService,
    OAuth2TokenClient,
  ],
  exports: [ConnectionsService, ConnectionLifecycle],
})
export class ConnectionsModule {}

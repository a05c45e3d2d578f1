import { Module } from '@nestjs/common';
import { IntegrationsModule } from '../integrations/integrations.module';
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
    ConnectionLifecycle,
    ConnectionsRepository,
    ConnectionsService,
    CredentialRefreshService,
    OAuth2TokenClient,
  ],
  exports: [ConnectionsService, ConnectionLifecycle],
})
export class ConnectionsModule {}

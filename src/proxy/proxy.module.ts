import { Module } from '@nestjs/common';
import { ConnectionsModule } from '../connections/connections.module';
import { ProxyService } from './proxy.service';

@Module({
  imports: [ConnectionsModule],
  providers: [ProxyService],
  exports: [ProxyService],
})
export class ProxyModule {}

import { Module } from '@nestjs/common';
import { EnvironmentsModule } from '../environments/environments.module';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [EnvironmentsModule],
  providers: [WebhooksService],
  exports: [WebhooksService],
})
export class WebhooksModule {}

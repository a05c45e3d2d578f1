import { Module } from '@nestjs/common';
import { ConnectionsModule } from '../connections/connections.module';
import { RecordsReadRepository } from './records-read.repository';
import { RecordsReadService } from './records-read.service';
import { RecordsController } from './records.controller';
import { RecordsRepository } from './records.repository';
import { RecordsService } from './records.service';

@Module({
  imports: [ConnectionsModule],
  controllers: [RecordsController],
  providers: [RecordsRepository, RecordsService, RecordsReadRepository, RecordsReadService],
  exports: [RecordsService],
})
export class RecordsModule {}

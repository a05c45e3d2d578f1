import { Module } from '@nestjs/common';
import { ConnectionsModule } from '../connections/connections.module';
import { ScriptsModule } from '../scripts/scripts.module';
import { SyncsModule } from '../syncs/syncs.module';
import { ActionRunnerService } from './action-runner.service';
import { ActionsController } from './actions.controller';
import { ActionsService } from './actions.service';

@Module({
  imports: [ConnectionsModule, ScriptsModule, SyncsModule],
  controllers: [ActionsController],
  providers: [ActionsService, ActionRunnerService],
  exports: [ActionRunnerService],
})
export class ActionsModule {}

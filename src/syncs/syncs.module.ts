import { Module } from '@nestjs/common';
import { ConnectionsModule } from '../connections/connections.module';
import { EnvironmentVariablesModule } from '../environment-variables/environment-variables.module';
import { ProxyModule } from '../proxy/proxy.module';
import { RecordsModule } from '../records/records.module';
import { ScriptServices } from '../runtime/script-services';
import { ScriptsModule } from '../scripts/scripts.module';
import { DryRunService } from './dry-run.service';
import { ScheduleReconcilerService } from './schedule-reconciler.service';
import { SchedulesService } from './schedules.service';
import { SyncSchedulesRepository } from './sync-schedules.repository';
import { SyncRunnerService } from './sync-runner.service';
import { SyncRunsRepository } from './sync-runs.repository';
import { SyncsController } from './syncs.controller';
import { SyncsService } from './syncs.service';

@Module({
  imports: [
    ConnectionsModule,
    ProxyModule,
    EnvironmentVariablesModule,
    RecordsModule,
    ScriptsModule,
  ],
  controllers: [SyncsController],
  providers: [
    ScriptServices,
    SyncRunsRepository,
    SyncSchedulesRepository,
    SyncRunnerService,
    SchedulesService,
    ScheduleReconcilerService,
    SyncsService,
    DryRunService,
  ],
  exports: [
    SyncRunsRepository,
    SyncRunnerService,
    SyncsService,
    ScriptServices,
    SchedulesService,
    ScheduleReconcilerService,
  ],
})
export class SyncsModule {}

import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type AuthenticatedEnvironment,
  CallerEnvironment,
} from '../auth/caller-environment.decorator';
import { InvalidRequestError } from '../common/errors/domain-error';
import { DryRunService } from './dry-run.service';
import {
  DryRunDto,
  ListSyncRunsQueryDto,
  SyncSelectionDto,
  SyncStatusQueryDto,
  TriggerSyncDto,
  UpdateFrequencyDto,
} from './dto/sync-requests.dto';
import { SchedulesService } from './schedules.service';
import { SyncsService } from './syncs.service';

function selection(body: SyncSelectionDto) {
  return {
    providerConfigKey: body.provider_config_key,
    syncs: body.syncs,
    connectionId: body.connection_id,
  };
}

@ApiTags('syncs')
@ApiBearerAuth()
@Controller()
export class SyncsController {
  constructor(
    private readonly syncs: SyncsService,
    private readonly schedules: SchedulesService,
    private readonly dryRuns: DryRunService,
  ) {}

  @Post('sync/trigger')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run syncs now (all when `syncs` is empty) for one or every connection',
  })
  async trigger(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Body() body: TriggerSyncDto,
  ) {
    const triggered = await this.schedules.trigger(caller, {
      ...selection(body),
      fullResync: body.full_resync === true,
    });
    return { success: true, triggered };
  }

  @Post('sync/start')
  @HttpCode(200)
  @ApiOperation({ summary: 'Start (unpause) syncs; a sync that never ran runs now' })
  async start(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Body() body: SyncSelectionDto,
  ) {
    return { success: true, syncs: await this.schedules.start(caller, selection(body)) };
  }

  @Post('sync/pause')
  @HttpCode(200)
  @ApiOperation({ summary: 'Pause syncs: a running run finishes, nothing new starts' })
  async pause(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Body() body: SyncSelectionDto,
  ) {
    return { success: true, syncs: await this.schedules.pause(caller, selection(body)) };
  }

  @Get('sync/status')
  @ApiOperation({ summary: 'Status of syncs (spec 2.6)' })
  async status(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Query() query: SyncStatusQueryDto,
  ) {
    const names =
      query.syncs.trim() === '*' ? [] : query.syncs.split(',').map((name) => name.trim());
    if (names.some((name) => name.length === 0)) {
      throw new InvalidRequestError('syncs holds an empty name', [
        { path: 'syncs', message: 'comma-separated sync names, or *' },
      ]);
    }
    return {
      syncs: await this.syncs.status(caller, {
        providerConfigKey: query.provider_config_key,
        syncs: names,
        connectionId: query.connection_id,
      }),
    };
  }

  @Put('sync/update-connection-frequency')
  @ApiOperation({ summary: "Override a sync's frequency for one connection; null reverts" })
  async updateFrequency(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Body() body: UpdateFrequencyDto,
  ) {
    const sync = body.sync ?? body.sync_name;
    if (!sync) {
      throw new InvalidRequestError('sync is required', [
        { path: 'sync', message: 'give the sync name as sync (or sync_name)' },
      ]);
    }
    if (body.frequency === undefined) {
      throw new InvalidRequestError('frequency is required', [
        { path: 'frequency', message: 'a frequency such as "1h", or null to revert' },
      ]);
    }
    return this.schedules.updateFrequency(caller, {
      providerConfigKey: body.provider_config_key,
      connectionId: body.connection_id,
      sync,
      frequency: body.frequency,
    });
  }

  @Get('sync/runs')
  @ApiOperation({ summary: "A connection's sync runs, newest first" })
  async runs(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Query() query: ListSyncRunsQueryDto,
  ) {
    return {
      runs: await this.syncs.listRuns(caller.id, {
        providerConfigKey: query.provider_config_key,
        connectionId: query.connection_id,
        sync: query.sync,
        limit: query.limit ? Number(query.limit) : 20,
      }),
    };
  }

  @Post('scripts/dryrun')
  @HttpCode(200)
  @ApiOperation({ summary: 'Run a script bundle against a connection without saving anything' })
  async dryRun(@CallerEnvironment() caller: AuthenticatedEnvironment, @Body() body: DryRunDto) {
    const models =
      body.kind === 'sync' && typeof body.definition.models === 'object' && body.definition.models
        ? Object.keys(body.definition.models)
        : [];
    let lastSyncDate: Date | undefined;
    if (body.last_sync_date !== undefined) {
      lastSyncDate = new Date(body.last_sync_date);
      if (Number.isNaN(lastSyncDate.getTime())) {
        throw new InvalidRequestError('last_sync_date is not an ISO 8601 timestamp', [
          { path: 'last_sync_date', message: 'must be an ISO 8601 timestamp' },
        ]);
      }
    }
    const timeout = body.definition.timeout_ms;
    return this.dryRuns.run(caller, {
      kind: body.kind,
      name: body.name,
      providerConfigKey: body.provider_config_key,
      connectionId: body.connection_id,
      bundle: body.bundle,
      models,
      input: body.input,
      checkpoint: body.checkpoint,
      lastSyncDate,
      timeoutMs: typeof timeout === 'number' ? timeout : undefined,
    });
  }
}

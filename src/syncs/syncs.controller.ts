import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type AuthenticatedEnvironment,
  CallerEnvironment,
} from '../auth/caller-environment.decorator';
import { InvalidRequestError } from '../common/errors/domain-error';
import { DryRunService } from './dry-run.service';
import { DryRunDto, ListSyncRunsQueryDto, TriggerSyncDto } from './dto/sync-requests.dto';
import { SyncsService } from './syncs.service';

@ApiTags('syncs')
@ApiBearerAuth()
@Controller()
export class SyncsController {
  constructor(
    private readonly syncs: SyncsService,
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
    const runs = await this.syncs.trigger(caller, {
      providerConfigKey: body.provider_config_key,
      syncs: body.syncs,
      connectionId: body.connection_id,
    });
    return { success: true, runs };
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
      body.kind === 'sync' && body.definition && typeof body.definition.models === 'object'
        ? Object.keys(body.definition.models as object)
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
    const timeout = body.definition?.timeout_ms;
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

import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type AuthenticatedEnvironment,
  CallerEnvironment,
} from '../auth/caller-environment.decorator';
import { DeployScriptsDto, ListScriptsQueryDto } from './dto/scripts.dto';
import type { ScriptDefinitionJson, ScriptKind } from './script.types';
import { type DeployResult, ScriptsService } from './scripts.service';

export interface ScriptView {
  readonly integration: string;
  readonly kind: ScriptKind;
  readonly name: string;
  readonly version: number;
  readonly hash: string;
  readonly deployed_at: string;
  readonly definition: ScriptDefinitionJson;
}

/** Larger than the default body limit: every deploy carries every bundle (about 0.8 MB each). */
export const DEPLOY_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

@ApiTags('scripts')
@ApiBearerAuth()
@Controller('scripts')
export class ScriptsController {
  constructor(private readonly scripts: ScriptsService) {}

  @Post('deploy')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Deploys the complete set of scripts of the environment (used by `junction deploy`)',
  })
  deploy(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Body() body: DeployScriptsDto,
  ): Promise<DeployResult> {
    return this.scripts.deploy(caller.id, {
      scripts: body.scripts,
      allowRemovals: body.allow_removals,
    });
  }

  @Get()
  async list(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Query() query: ListScriptsQueryDto,
  ): Promise<{ scripts: ScriptView[] }> {
    const scripts = await this.scripts.summaries(caller.id, {
      providerConfigKey: query.provider_config_key,
      kind: query.kind,
    });
    return {
      scripts: scripts.map((script) => ({
        integration: script.providerConfigKey,
        kind: script.kind,
        name: script.name,
        version: script.version,
        hash: script.hash,
        deployed_at: script.deployedAt.toISOString(),
        definition: script.definition,
      })),
    };
  }
}

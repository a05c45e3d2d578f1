import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import {
  type AuthenticatedEnvironment,
  CallerEnvironment,
} from '../auth/caller-environment.decorator';
import { GetIntegrationQueryDto, IntegrationBodyDto } from './dto/integration.dto';
import { IntegrationsService, type IntegrationView } from './integrations.service';

/** Integrations live under `/config` on the wire (WIRE.md). */
@ApiTags('integrations')
@ApiBearerAuth()
@Controller('config')
export class IntegrationsController {
  constructor(private readonly integrations: IntegrationsService) {}

  @Get()
  async list(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
  ): Promise<{ configs: Array<{ unique_key: string; provider: string }> }> {
    return { configs: await this.integrations.list(caller.id) };
  }

  @Get(':providerConfigKey')
  async get(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Param('providerConfigKey') key: string,
    @Query() query: GetIntegrationQueryDto,
  ): Promise<{ config: IntegrationView }> {
    return { config: await this.integrations.get(caller.id, key, query.include_creds === 'true') };
  }

  @Post()
  async create(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Body() body: IntegrationBodyDto,
  ): Promise<{ config: IntegrationView }> {
    return { config: await this.integrations.create(caller.id, body) };
  }

  @Put()
  async update(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Body() body: IntegrationBodyDto,
  ): Promise<{ config: IntegrationView }> {
    return { config: await this.integrations.update(caller.id, body) };
  }

  @Delete(':providerConfigKey')
  @HttpCode(204)
  async delete(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Param('providerConfigKey') key: string,
  ): Promise<void> {
    await this.integrations.delete(caller.id, key);
  }
}

import { Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import {
  type AuthenticatedEnvironment,
  CallerEnvironment,
} from '../auth/caller-environment.decorator';
import { RawJsonBody } from '../common/validation/raw-json-body.decorator';
import type { ProviderDefinition } from './provider.types';
import { ProvidersService, type ProviderSource } from './providers.service';

@ApiTags('providers')
@ApiBearerAuth()
@Controller('providers')
export class ProvidersController {
  constructor(private readonly providers: ProvidersService) {}

  @Get()
  async list(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
  ): Promise<{ providers: Array<ProviderDefinition & { source: ProviderSource }> }> {
    return { providers: await this.providers.list(caller.id) };
  }

  @Get(':name')
  async get(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Param('name') name: string,
  ): Promise<{ provider: ProviderDefinition }> {
    return { provider: await this.providers.require(caller.id, name) };
  }

  /** Creates or replaces a custom provider of this environment (same fields as the catalog). */
  @Put(':name')
  @ApiBody({
    description: 'A provider definition; see the provider catalog for the fields',
    schema: { type: 'object' },
  })
  async put(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Param('name') name: string,
    @RawJsonBody() body: unknown,
  ): Promise<{ provider: ProviderDefinition }> {
    return { provider: await this.providers.putCustom(caller.id, name, body) };
  }

  @Delete(':name')
  @HttpCode(204)
  async delete(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Param('name') name: string,
  ): Promise<void> {
    await this.providers.deleteCustom(caller.id, name);
  }
}

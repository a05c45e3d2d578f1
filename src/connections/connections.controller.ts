import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import {
  type AuthenticatedEnvironment,
  CallerEnvironment,
} from '../auth/caller-environment.decorator';
import {
  ConnectionsService,
  type ConnectionSummary,
  type ConnectionView,
} from './connections.service';
import {
  DeleteConnectionQueryDto,
  GetConnectionQueryDto,
  ListConnectionsQueryDto,
} from './dto/connection-queries.dto';
import { ImportConnectionDto } from './dto/import-connection.dto';
import { MetadataBodyDto } from './dto/metadata.dto';

const idList = (value: string | string[]): string[] => (Array.isArray(value) ? value : [value]);

@ApiTags('connections')
@ApiBearerAuth()
@Controller('connection')
export class ConnectionsController {
  constructor(private readonly connections: ConnectionsService) {}

  /** Imports a connection, or replaces the credentials of the existing one; 201 either way (WIRE.md). */
  @Post()
  async import(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Body() body: ImportConnectionDto,
  ): Promise<ConnectionView> {
    return (await this.connections.import(caller.id, body)).view;
  }

  @Get()
  async list(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Query() query: ListConnectionsQueryDto,
  ): Promise<{ connections: ConnectionSummary[] }> {
    return { connections: await this.connections.list(caller.id, query.connectionId) };
  }

  @Post('metadata')
  @HttpCode(200)
  async setMetadata(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Body() body: MetadataBodyDto,
  ): Promise<{ success: true }> {
    await this.connections.writeMetadata(
      caller.id,
      body.provider_config_key,
      idList(body.connection_id),
      body.metadata,
      false,
    );
    return { success: true };
  }

  @Patch('metadata')
  async updateMetadata(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Body() body: MetadataBodyDto,
  ): Promise<{ success: true }> {
    await this.connections.writeMetadata(
      caller.id,
      body.provider_config_key,
      idList(body.connection_id),
      body.metadata,
      true,
    );
    return { success: true };
  }

  @Get(':connectionId')
  get(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Param('connectionId') connectionId: string,
    @Query() query: GetConnectionQueryDto,
  ): Promise<ConnectionView> {
    return this.connections.get(caller.id, query.provider_config_key, connectionId, {
      forceRefresh: query.force_refresh === 'true',
      includeRefreshToken: query.refresh_token === 'true',
    });
  }

  @Delete(':connectionId')
  @HttpCode(204)
  async delete(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Param('connectionId') connectionId: string,
    @Query() query: DeleteConnectionQueryDto,
  ): Promise<void> {
    await this.connections.delete(caller.id, query.provider_config_key, connectionId);
  }
}

import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import {
  type AuthenticatedEnvironment,
  CallerEnvironment,
} from '../auth/caller-environment.decorator';
import { LegacyRecordsQueryDto, ListRecordsQueryDto } from './dto/records-queries.dto';
import { RecordsReadService, type RecordsBody } from './records-read.service';
import { parseLegacyRecordsQuery, parseListRecordsQuery } from './records-query';

/** When getRecords was deprecated (RFC 9745 form: `@` and Unix seconds): 2025-11-22T00:00:00Z. */
const GET_RECORDS_DEPRECATED_AT = 1_763_769_600;

const RECORD_SHAPE =
  'Each record is the stored JSON plus `_service_metadata`: { deleted_at, last_action (ADDED, UPDATED or DELETED), first_seen_at, last_modified_at, cursor }.';

@ApiTags('records')
@ApiBearerAuth()
@ApiHeader({ name: 'Connection-Id', required: true })
@ApiHeader({ name: 'Provider-Config-Key', required: true })
@Controller()
export class RecordsController {
  constructor(private readonly records: RecordsReadService) {}

  /** listRecords: keyset pages ordered by last modification, then id (WIRE.md "Records"). */
  @Get('records')
  @ApiOkResponse({
    description: `{ records, next_cursor }; next_cursor is null on the last page. ${RECORD_SHAPE}`,
  })
  async list(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Headers() headers: IncomingHttpHeaders,
    @Query() query: ListRecordsQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const body = await this.records.list(caller.id, parseListRecordsQuery(headers, query));
    await send(reply, body);
  }

  /** getRecords, deprecated: OFFSET pages cost more the further they go; use GET /records. */
  @Get('sync/records')
  @ApiOperation({ deprecated: true, summary: 'getRecords (deprecated): use GET /records' })
  @ApiOkResponse({ description: `A JSON array of records. ${RECORD_SHAPE}` })
  async legacy(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Headers() headers: IncomingHttpHeaders,
    @Query() query: LegacyRecordsQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const body = await this.records.legacy(caller.id, parseLegacyRecordsQuery(headers, query));
    void reply
      .header('deprecation', `@${GET_RECORDS_DEPRECATED_AT}`)
      .header('link', '</records>; rel="successor-version"');
    await send(reply, body);
  }
}

async function send(reply: FastifyReply, body: RecordsBody): Promise<void> {
  await reply.status(200).header('content-type', 'application/json; charset=utf-8').send(body);
}

import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import type { RawLegacyRecordsQuery, RawListRecordsQuery } from '../records-query';
import { MAX_RECORDS_LIMIT } from '../records-query';

/*
 * The DTOs only list the parameters (unknown ones are refused) and document them; their
 * values are parsed by records-query.ts, which names every bad parameter in one 400.
 */

const FILTER_DESCRIPTION =
  'added, updated, deleted, or a comma-separated combination such as added,updated';

export class ListRecordsQueryDto implements RawListRecordsQuery {
  @ApiPropertyOptional({ description: 'Data model name (required)' })
  @IsOptional()
  @IsString()
  model?: string;

  @ApiPropertyOptional({
    description: 'ISO 8601 timestamp: only records last modified at or after it',
  })
  @IsOptional()
  @IsString()
  modified_after?: string;

  @ApiPropertyOptional({ description: 'Alias of modified_after' })
  @IsOptional()
  @IsString()
  delta?: string;

  @ApiPropertyOptional({
    description: `Records per page, 1 to ${MAX_RECORDS_LIMIT}; without it every record is returned`,
  })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: FILTER_DESCRIPTION })
  @IsOptional()
  @IsString()
  filter?: string;

  @ApiPropertyOptional({ description: 'next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;
}

export class LegacyRecordsQueryDto implements RawLegacyRecordsQuery {
  @ApiPropertyOptional({ description: 'Data model name (required)' })
  @IsOptional()
  @IsString()
  model?: string;

  @ApiPropertyOptional({
    description: 'ISO 8601 timestamp: only records last modified at or after it',
  })
  @IsOptional()
  @IsString()
  delta?: string;

  @ApiPropertyOptional({ description: 'Records to skip (default 0)' })
  @IsOptional()
  @IsString()
  offset?: string;

  @ApiPropertyOptional({
    description: `Records to return, 1 to ${MAX_RECORDS_LIMIT}; without it every record from the offset`,
  })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ enum: ['id', 'created_at', 'updated_at'], description: 'Default id' })
  @IsOptional()
  @IsString()
  sort_by?: string;

  @ApiPropertyOptional({ enum: ['asc', 'desc'], description: 'Default asc' })
  @IsOptional()
  @IsString()
  order?: string;

  @ApiPropertyOptional({ description: FILTER_DESCRIPTION })
  @IsOptional()
  @IsString()
  filter?: string;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
} from 'class-validator';

export class TriggerSyncDto {
  @ApiProperty({ type: [String], description: 'Sync names; empty means every sync' })
  @IsArray()
  @IsString({ each: true })
  syncs!: string[];

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  provider_config_key!: string;

  @ApiPropertyOptional({ description: 'Without it, every connection of the integration' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  connection_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  full_resync?: boolean;
}

export class ListSyncRunsQueryDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  provider_config_key!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  connection_id!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  sync?: string;

  @ApiPropertyOptional({ description: '1 to 100, default 20' })
  @IsOptional()
  @Matches(/^(100|[1-9]\d?)$/, { message: 'limit must be an integer from 1 to 100' })
  limit?: string;
}

export class DryRunDto {
  @ApiProperty({ enum: ['sync', 'action'] })
  @IsIn(['sync', 'action'])
  kind!: 'sync' | 'action';

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  name!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  provider_config_key!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  connection_id!: string;

  @ApiProperty({ description: 'The definition JSON the CLI built (models, type…)' })
  @IsObject()
  definition!: Record<string, unknown>;

  @ApiProperty({ description: 'The CommonJS bundle of the script' })
  @IsString()
  @IsNotEmpty()
  bundle!: string;

  @ApiPropertyOptional({ description: 'Action input' })
  @IsOptional()
  input?: unknown;

  @ApiPropertyOptional({ description: 'Checkpoint the sync starts from' })
  @IsOptional()
  checkpoint?: unknown;

  @ApiPropertyOptional({ description: 'lastSyncDate the sync sees (ISO 8601)' })
  @IsOptional()
  @IsString()
  last_sync_date?: string;
}

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
  ValidateIf,
} from 'class-validator';

export class SyncSelectionDto {
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
}

export class TriggerSyncDto extends SyncSelectionDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  full_resync?: boolean;
}

export class SyncStatusQueryDto {
  @ApiProperty({ description: 'Comma-separated sync names, or * for all' })
  @IsString()
  @IsNotEmpty({ message: 'syncs is required: comma-separated sync names, or *' })
  syncs!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  provider_config_key!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  connection_id?: string;
}

export class UpdateFrequencyDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  provider_config_key!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  connection_id!: string;

  @ApiPropertyOptional({ description: 'The sync name (alias: sync_name)' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  sync?: string;

  @ApiPropertyOptional({ description: 'Alias of sync' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  sync_name?: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'A number with a unit (30s, 5m, 1h, 1d, "5 minutes"); null reverts to the default',
  })
  @ValidateIf((_, value) => value !== null)
  @IsString({ message: 'frequency must be a string such as "1h", or null' })
  frequency!: string | null;
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

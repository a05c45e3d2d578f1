import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
} from 'class-validator';

/** Spec 2.4. Which credential fields are required depends on the provider's auth mode. */
export class ImportConnectionDto {
  @ApiProperty()
  @IsString()
  @Length(1, 255)
  connection_id: string;

  @ApiProperty()
  @IsString()
  @Length(1, 100)
  provider_config_key: string;

  @ApiPropertyOptional({ description: 'OAuth 2' })
  @IsOptional()
  @IsString()
  @Length(1, 16_384)
  access_token?: string;

  @ApiPropertyOptional({ description: 'OAuth 2' })
  @IsOptional()
  @IsString()
  @Length(1, 16_384)
  refresh_token?: string;

  @ApiPropertyOptional({
    description: 'OAuth 2; preferred over expires_in',
    example: '2030-01-01T00:00:00Z',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expires_at must be an ISO 8601 timestamp' })
  expires_at?: string;

  @ApiPropertyOptional({ description: 'OAuth 2; seconds from now' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100 * 365 * 24 * 3600)
  expires_in?: number;

  @ApiPropertyOptional({ description: 'OAuth 1' })
  @IsOptional()
  @IsString()
  @Length(1, 16_384)
  oauth_token?: string;

  @ApiPropertyOptional({ description: 'OAuth 1' })
  @IsOptional()
  @IsString()
  @Length(1, 16_384)
  oauth_token_secret?: string;

  @ApiPropertyOptional({ description: 'Basic' })
  @IsOptional()
  @IsString()
  @Length(1, 1024)
  username?: string;

  @ApiPropertyOptional({ description: 'Basic' })
  @IsOptional()
  @IsString()
  @Length(0, 16_384)
  password?: string;

  @ApiPropertyOptional({ description: 'API key' })
  @IsOptional()
  @IsString()
  @Length(1, 16_384)
  api_key?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  connection_config?: Record<string, unknown>;
}

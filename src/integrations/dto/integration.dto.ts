import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';

export class IntegrationBodyDto {
  @ApiProperty({
    description: 'Provider name from the catalog or a custom provider',
    example: 'github',
  })
  @IsString()
  @Length(1, 100)
  provider: string;

  @ApiProperty({ description: 'The integration ID', example: 'github-prod' })
  @IsString()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, {
    message:
      'provider_config_key must be 1-100 letters, digits, ".", "_" or "-", starting with a letter or digit',
  })
  provider_config_key: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 1000)
  oauth_client_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 4000)
  oauth_client_secret?: string;

  @ApiPropertyOptional({ description: 'Comma-separated scopes', example: 'repo,user' })
  @IsOptional()
  @IsString()
  @Length(0, 4000)
  oauth_scopes?: string;
}

export class GetIntegrationQueryDto {
  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'include_creds must be true or false' })
  include_creds?: 'true' | 'false';
}

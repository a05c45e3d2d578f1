import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';

export class ListConnectionsQueryDto {
  @ApiPropertyOptional({ description: 'Only the connections with this connection ID' })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  connectionId?: string;
}

export class GetConnectionQueryDto {
  @ApiProperty()
  @IsString()
  @Length(1, 100)
  provider_config_key: string;

  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'force_refresh must be true or false' })
  force_refresh?: 'true' | 'false';

  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'refresh_token must be true or false' })
  refresh_token?: 'true' | 'false';
}

export class DeleteConnectionQueryDto {
  @ApiProperty()
  @IsString()
  @Length(1, 100)
  provider_config_key: string;
}

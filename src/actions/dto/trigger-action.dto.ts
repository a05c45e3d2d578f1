import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString } from 'class-validator';

export class TriggerActionDto {
  @ApiProperty({ description: 'Name of a deployed action of the integration' })
  @IsString()
  @IsNotEmpty()
  action_name!: string;

  @ApiPropertyOptional({ description: "The action's input, checked against its schema" })
  @IsOptional()
  input?: unknown;
}

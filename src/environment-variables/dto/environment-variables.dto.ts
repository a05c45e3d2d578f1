import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsString, Length, Matches, ValidateNested } from 'class-validator';

export class EnvironmentVariableDto {
  @ApiProperty({ example: 'API_REGION' })
  @IsString()
  @Matches(/^[A-Za-z_][A-Za-z0-9_]{0,255}$/, {
    message:
      'name must start with a letter or "_" and hold only letters, digits and "_" (at most 256)',
  })
  name: string;

  @ApiProperty()
  @IsString()
  @Length(0, 32_768)
  value: string;
}

/** The complete list: variables not in it are removed. */
export class SetEnvironmentVariablesDto {
  @ApiProperty({ type: [EnvironmentVariableDto] })
  @IsArray()
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => EnvironmentVariableDto)
  variables: EnvironmentVariableDto[];
}

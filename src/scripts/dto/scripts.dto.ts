import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MinLength,
  ValidateNested,
} from 'class-validator';
import {
  INTEGRATION_KEY,
  INTEGRATION_KEY_RULE,
  SCRIPT_KINDS,
  SCRIPT_NAME,
  SCRIPT_NAME_RULE,
} from '../definition-schema';
import type { ScriptKind } from '../script.types';

export class DeployScriptDto {
  @ApiProperty({ enum: SCRIPT_KINDS })
  @IsIn(SCRIPT_KINDS, { message: 'kind must be "sync" or "action"' })
  kind: ScriptKind;

  @ApiProperty({ example: 'github-issues' })
  @IsString()
  @Matches(SCRIPT_NAME, { message: `name ${SCRIPT_NAME_RULE}` })
  name: string;

  @ApiProperty({ description: 'The integration ID (provider_config_key)', example: 'github' })
  @IsString()
  @Matches(INTEGRATION_KEY, { message: `integration ${INTEGRATION_KEY_RULE}` })
  integration: string;

  @ApiProperty({
    description:
      'SyncDefinitionJson or ActionDefinitionJson, as the CLI builds it from the script (model and input schemas as JSON Schema)',
    type: 'object',
    additionalProperties: true,
  })
  @IsObject({ message: 'definition must be an object' })
  definition: Record<string, unknown>;

  @ApiProperty({
    description:
      'CommonJS bundle whose `module.exports.default` is the createSync/createAction result',
  })
  @IsString()
  @MinLength(1, { message: 'bundle must not be empty' })
  bundle: string;
}

/** The complete set of scripts of the environment: stored scripts not in it are removals. */
export class DeployScriptsDto {
  @ApiProperty({ type: [DeployScriptDto] })
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => DeployScriptDto)
  scripts: DeployScriptDto[];

  @ApiPropertyOptional({
    description: 'Confirms that stored scripts missing from `scripts` are deleted',
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  allow_removals?: boolean;
}

export class ListScriptsQueryDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  provider_config_key?: string;

  @ApiPropertyOptional({ enum: SCRIPT_KINDS })
  @IsOptional()
  @IsIn(SCRIPT_KINDS, { message: 'kind must be "sync" or "action"' })
  kind?: ScriptKind;
}

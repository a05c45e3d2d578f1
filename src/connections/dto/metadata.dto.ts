import { ApiProperty } from '@nestjs/swagger';
import { IsObject, IsString, Length, ValidateBy } from 'class-validator';

const isConnectionIdList = (value: unknown): boolean =>
  (typeof value === 'string' && value.length > 0 && value.length <= 255) ||
  (Array.isArray(value) &&
    value.length > 0 &&
    value.length <= 1000 &&
    value.every((item) => typeof item === 'string' && item.length > 0 && item.length <= 255));

export class MetadataBodyDto {
  @ApiProperty({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] })
  @ValidateBy({
    name: 'isConnectionIdList',
    validator: {
      validate: isConnectionIdList,
      defaultMessage: () =>
        'connection_id must be a connection ID or a non-empty array of up to 1000 of them',
    },
  })
  connection_id: string | string[];

  @ApiProperty()
  @IsString()
  @Length(1, 100)
  provider_config_key: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  @IsObject()
  metadata: Record<string, unknown>;
}

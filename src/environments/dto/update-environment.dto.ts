import { ApiProperty } from '@nestjs/swagger';
import { IsUrl, ValidateIf } from 'class-validator';

export class UpdateEnvironmentDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'URL that receives webhooks of this environment; null removes it.',
    example: 'https://example.com/junction/webhooks',
  })
  @ValidateIf((_object, value) => value !== null)
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'webhook_url must be an http or https URL, or null' },
  )
  webhook_url: string | null;
}

import { ApiProperty } from '@nestjs/swagger';

/** The answer to a rotation: the only time the secret is shown. */
export class WebhookSecretDto {
  @ApiProperty({
    description:
      "The new secret that signs this environment's webhooks (HMAC-SHA256). Store it now: it is never shown again.",
    example: 'whsec_3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  })
  webhook_secret: string;
}

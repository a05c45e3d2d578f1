export { Junction, type JunctionClientOptions } from './junction-client';
export { JunctionError, type JunctionFieldError } from './errors';
export type * from './types';
export {
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  type VerifyWebhookSignatureInput,
  type WebhookBody,
  type WebhookHeaders,
} from '../webhooks/webhook-signature';
export type { SyncWebhookPayload } from '../webhooks/webhook-payload';

import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  type DeliverSyncWebhookInput,
  WEBHOOK_RETRY_POLICY,
} from '../activities/webhook.activities';

const { deliverSyncWebhook } = proxyActivities<Activities>({
  // Above WEBHOOK_TIMEOUT_MS (10 s by default): the request's own timeout ends an attempt first.
  startToCloseTimeout: '1 minute',
  retry: WEBHOOK_RETRY_POLICY,
});

/**
 * Delivers one sync webhook, retrying with backoff for about 14 minutes. A child of the sync run
 * that outlives it, so a slow receiver never holds up the next run of the sync.
 */
export async function webhookDeliveryWorkflow(input: DeliverSyncWebhookInput): Promise<string> {
  return deliverSyncWebhook(input);
}

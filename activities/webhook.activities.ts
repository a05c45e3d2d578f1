import type { RetryPolicy } from '@temporalio/common';
import type { SyncWebhookPayload } from '../src/webhooks/webhook-payload';
import type { WebhookDeliveryResult, WebhooksService } from '../src/webhooks/webhooks.service';

/*
 * Only type imports besides the constant below: workflows import WEBHOOK_RETRY_POLICY from here,
 * and this file is then bundled into the workflow sandbox.
 */

export interface WebhookActivityDependencies {
  readonly webhooks: WebhooksService;
}

/**
 * Retries of one webhook delivery: 1 s, 2 s, 4 s ... capped at 60 s, 20 attempts, so a receiver
 * that is down for about 14 minutes still gets the webhook. Use with a startToCloseTimeout above
 * WEBHOOK_TIMEOUT_MS (e.g. 30 seconds with the default).
 */
export const WEBHOOK_RETRY_POLICY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '60 seconds',
  maximumAttempts: 20,
} as const satisfies RetryPolicy;

export interface DeliverSyncWebhookInput {
  readonly environmentId: number;
  readonly payload: SyncWebhookPayload;
}

export function createWebhookActivities({ webhooks }: WebhookActivityDependencies) {
  return {
    /** One attempt; a refused or failed delivery throws (retryable) with the receiver's answer. */
    deliverSyncWebhook(input: DeliverSyncWebhookInput): Promise<WebhookDeliveryResult> {
      return webhooks.deliver(input.environmentId, input.payload);
    },
  };
}

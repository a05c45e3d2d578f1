import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Dispatcher, request } from 'undici';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { EnvironmentsService } from '../environments/environments.service';
import { WebhookDeliveryError } from './webhook-delivery.error';
import type { SyncWebhookPayload } from './webhook-payload';
import { signWebhook } from './webhook-signature';

export type WebhookDeliveryResult = 'sent' | 'no_webhook_url';

const USER_AGENT = 'Junction-Webhooks';
/** Enough of the receiver's answer to say why it refused, without logging a large body. */
const MAX_REASON_CHARACTERS = 200;

/** Sends signed webhooks to environments' webhook URLs: one attempt per call, retries are Temporal's. */
@Injectable()
export class WebhooksService {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly environments: EnvironmentsService,
  ) {}

  /**
   * POSTs the payload to the environment's webhook URL, signed at send time (a retry carries a
   * fresh timestamp). Throws WebhookDeliveryError when the receiver does not answer 2xx in time.
   */
  async deliver(
    environmentId: number,
    payload: SyncWebhookPayload,
  ): Promise<WebhookDeliveryResult> {
    const destination = await this.environments.webhookDestination(environmentId);
    if (!destination) return 'no_webhook_url';
    const body = JSON.stringify(payload);
    const host = describeHost(destination.url);
    const timeoutMs = this.config.webhooks.timeoutMs;
    let status: number;
    let reason = '';
    try {
      const response = await request(destination.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          ...signWebhook({ secret: destination.secret, body }),
        },
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.statusCode;
      if (isSuccess(status)) await response.body.dump();
      else reason = await readReason(response.body);
    } catch (error) {
      throw new WebhookDeliveryError(
        `Webhook to ${host} failed: ${describeNetworkError(error, timeoutMs)}`,
      );
    }
    if (!isSuccess(status)) {
      throw new WebhookDeliveryError(
        `Webhook to ${host} answered HTTP ${status}${reason ? `: ${reason}` : ''}`,
        status,
      );
    }
    this.logger.debug(
      { environmentId, model: payload.model, connectionId: payload.connectionId, status },
      'Webhook delivered',
    );
    return 'sent';
  }
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** The start of the receiver's answer, read no further than needed. */
async function readReason(body: Dispatcher.ResponseData['body']): Promise<string> {
  let text = '';
  for await (const chunk of body) {
    text += Buffer.from(chunk as Uint8Array).toString('utf8');
    if (text.length >= MAX_REASON_CHARACTERS) break;
  }
  return text.trim().slice(0, MAX_REASON_CHARACTERS);
}

/** The host only: a URL may carry credentials or tokens in its path or query. */
function describeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the webhook URL';
  }
}

function describeNetworkError(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: unknown } | null)?.name;
  const code = (error as { code?: unknown } | null)?.code;
  if (
    name === 'TimeoutError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const reason = typeof code === 'string' ? code : cause?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof reason === 'string' && !message.includes(reason)
    ? `${reason} (${message})`
    : message;
}

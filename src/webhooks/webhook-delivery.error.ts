import { DomainError } from '../common/errors/domain-error';

/** The receiver answered with a non-2xx status, too late, or not at all; worth retrying. */
export class WebhookDeliveryError extends DomainError {
  constructor(
    message: string,
    /** The receiver's HTTP status; undefined when it did not answer. */
    readonly receiverStatus?: number,
  ) {
    super('webhook_delivery_failed', message);
  }
}

import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * Pure signing and verification, shared by the service and the client library (no NestJS here).
 * The signed text is `<unix seconds>.<raw body>`, so a captured request cannot be replayed later
 * with a new timestamp, nor its body changed.
 */

export const WEBHOOK_TIMESTAMP_HEADER = 'X-Junction-Timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'X-Junction-Signature';
export const WEBHOOK_SIGNATURE_VERSION = 'v1';
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

const HEX_SHA256 = /^[0-9a-f]{64}$/i;
const UNIX_SECONDS = /^\d{1,12}$/;

export type WebhookBody = string | Uint8Array;

/** Headers as Node's `IncomingMessage#headers`, a plain object, or a Fetch API `Headers`. */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface SignWebhookInput {
  readonly secret: string;
  /** The exact bytes sent. */
  readonly body: WebhookBody;
  /** Defaults to now. */
  readonly timestamp?: Date;
}

export interface VerifyWebhookSignatureInput {
  readonly secret: string;
  /** The raw request body, before any JSON parsing. */
  readonly body: WebhookBody;
  readonly headers: WebhookHeaders;
  /** Largest accepted distance between the signed timestamp and now. */
  readonly toleranceSeconds?: number;
  /** Defaults to the current time. */
  readonly now?: Date | number;
}

/** Hex HMAC-SHA256 of `<timestamp>.<body>`. */
export function computeWebhookSignature(
  secret: string,
  timestampSeconds: number | string,
  body: WebhookBody,
): string {
  return createHmac('sha256', secret)
    .update(`${timestampSeconds}.`, 'utf8')
    .update(body)
    .digest('hex');
}

/** The two headers that sign one delivery. */
export function signWebhook({ secret, body, timestamp }: SignWebhookInput): Record<string, string> {
  const seconds = Math.floor((timestamp?.getTime() ?? Date.now()) / 1000);
  return {
    [WEBHOOK_TIMESTAMP_HEADER]: String(seconds),
    [WEBHOOK_SIGNATURE_HEADER]: `${WEBHOOK_SIGNATURE_VERSION}=${computeWebhookSignature(secret, seconds, body)}`,
  };
}

/**
 * True when the headers carry a valid signature of this body under this secret, made within
 * `toleranceSeconds` of now. Compares in constant time.
 */
export function verifyWebhookSignature({
  secret,
  body,
  headers,
  toleranceSeconds = DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  now,
}: VerifyWebhookSignatureInput): boolean {
  const timestamp = readHeader(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatureHeader = readHeader(headers, WEBHOOK_SIGNATURE_HEADER);
  if (!secret || timestamp === undefined || signatureHeader === undefined) return false;
  if (!UNIX_SECONDS.test(timestamp)) return false;
  const nowSeconds = (now instanceof Date ? now.getTime() : (now ?? Date.now())) / 1000;
  if (!(Math.abs(nowSeconds - Number(timestamp)) <= toleranceSeconds)) return false;

  const expected = Buffer.from(computeWebhookSignature(secret, timestamp, body), 'hex');
  let valid = false;
  // Several `v1=` entries are allowed, so a sender could sign with two secrets at once.
  for (const entry of signatureHeader.split(',')) {
    const [version, signature] = entry.trim().split('=', 2);
    if (version !== WEBHOOK_SIGNATURE_VERSION || !signature || !HEX_SHA256.test(signature)) {
      continue;
    }
    if (timingSafeEqual(Buffer.from(signature, 'hex'), expected)) valid = true;
  }
  return valid;
}

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const lowerName = name.toLowerCase();
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() !== lowerName) continue;
    return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

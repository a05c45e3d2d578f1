import { createHmac } from 'node:crypto';
import {
  computeWebhookSignature,
  signWebhook,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from './webhook-signature';

describe('webhook signatures', () => {
  const secret = 'whsec_test-secret';
  const body = JSON.stringify({ type: 'sync', model: 'Contact', responseResults: { added: 1 } });
  const sentAt = new Date('2025-01-01T12:00:00Z');
  const headers = signWebhook({ secret, body, timestamp: sentAt });

  it('signs "<unix seconds>.<raw body>" with HMAC-SHA256 in hex, as v1=', () => {
    const seconds = String(sentAt.getTime() / 1000);
    expect(headers[WEBHOOK_TIMESTAMP_HEADER]).toBe(seconds);
    const expected = createHmac('sha256', secret).update(`${seconds}.${body}`).digest('hex');
    expect(headers[WEBHOOK_SIGNATURE_HEADER]).toBe(`v1=${expected}`);
    expect(computeWebhookSignature(secret, seconds, Buffer.from(body))).toBe(expected);
  });

  it('accepts the signed body with any header casing, as string or bytes, or Fetch Headers', () => {
    const lowerCased = Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    for (const candidate of [headers, lowerCased, new Headers(headers)]) {
      expect(verifyWebhookSignature({ secret, body, headers: candidate, now: sentAt })).toBe(true);
    }
    expect(
      verifyWebhookSignature({ secret, body: Buffer.from(body), headers, now: sentAt.getTime() }),
    ).toBe(true);
  });

  it('rejects a tampered body, a wrong secret and a replaced timestamp', () => {
    const now = sentAt;
    expect(verifyWebhookSignature({ secret, body: `${body} `, headers, now })).toBe(false);
    expect(verifyWebhookSignature({ secret: 'whsec_other', body, headers, now })).toBe(false);
    expect(verifyWebhookSignature({ secret: '', body, headers, now })).toBe(false);
    const moved = { ...headers, [WEBHOOK_TIMESTAMP_HEADER]: String(sentAt.getTime() / 1000 + 1) };
    expect(verifyWebhookSignature({ secret, body, headers: moved, now })).toBe(false);
  });

  it('rejects stale and future timestamps beyond the tolerance, and honours a custom one', () => {
    const at = (seconds: number) => new Date(sentAt.getTime() + seconds * 1000);
    expect(verifyWebhookSignature({ secret, body, headers, now: at(300) })).toBe(true);
    expect(verifyWebhookSignature({ secret, body, headers, now: at(301) })).toBe(false);
    expect(verifyWebhookSignature({ secret, body, headers, now: at(-301) })).toBe(false);
    expect(
      verifyWebhookSignature({ secret, body, headers, now: at(30), toleranceSeconds: 10 }),
    ).toBe(false);
  });

  it('rejects missing or malformed headers without throwing', () => {
    const now = sentAt;
    const signature = headers[WEBHOOK_SIGNATURE_HEADER]!;
    const timestamp = headers[WEBHOOK_TIMESTAMP_HEADER]!;
    for (const candidate of [
      {},
      { [WEBHOOK_SIGNATURE_HEADER]: signature },
      { [WEBHOOK_TIMESTAMP_HEADER]: timestamp },
      { [WEBHOOK_TIMESTAMP_HEADER]: 'soon', [WEBHOOK_SIGNATURE_HEADER]: signature },
      { [WEBHOOK_TIMESTAMP_HEADER]: timestamp, [WEBHOOK_SIGNATURE_HEADER]: signature.slice(3) },
      { [WEBHOOK_TIMESTAMP_HEADER]: timestamp, [WEBHOOK_SIGNATURE_HEADER]: 'v1=abc' },
      { [WEBHOOK_TIMESTAMP_HEADER]: timestamp, [WEBHOOK_SIGNATURE_HEADER]: signature.slice(0, -2) },
      {
        [WEBHOOK_TIMESTAMP_HEADER]: timestamp,
        [WEBHOOK_SIGNATURE_HEADER]: `v2=${signature.slice(3)}`,
      },
    ]) {
      expect(verifyWebhookSignature({ secret, body, headers: candidate, now })).toBe(false);
    }
  });

  it('accepts a header listing several signatures when one matches', () => {
    const signature = headers[WEBHOOK_SIGNATURE_HEADER]!;
    const several = {
      ...headers,
      [WEBHOOK_SIGNATURE_HEADER]: `v1=${'0'.repeat(64)}, ${signature}`,
    };
    expect(verifyWebhookSignature({ secret, body, headers: several, now: sentAt })).toBe(true);
  });
});

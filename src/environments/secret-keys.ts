import { createHash, randomBytes } from 'node:crypto';
import type { EnvironmentName } from './entities/environment.entity';

/** Keys carry their environment in a readable prefix and 256 random bits. */
export function generateSecretKey(environment: EnvironmentName): string {
  return `jct_${environment}_${randomBytes(32).toString('base64url')}`;
}

/** Keys are random and long, so a fast unsalted hash is enough to make the stored value useless. */
export function hashSecretKey(secretKey: string): string {
  return createHash('sha256').update(secretKey, 'utf8').digest('hex');
}

/** Webhook secrets are HMAC keys: 256 random bits, with a prefix that says what they are. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

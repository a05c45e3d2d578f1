import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const VERSION = 'v1';
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export interface EncryptionKey {
  readonly id: string;
  readonly key: Buffer;
}

export class EncryptionKeyError extends Error {}

/** Parses `id:base64[,id:base64...]`; the first key encrypts, every key decrypts. */
export function parseEncryptionKeys(text: string): EncryptionKey[] {
  const problems: string[] = [];
  const keys = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry, index) => {
      const separator = entry.indexOf(':');
      const id = separator > 0 ? entry.slice(0, separator) : '';
      const key = Buffer.from(separator > 0 ? entry.slice(separator + 1) : '', 'base64');
      if (!KEY_ID.test(id))
        problems.push(
          `key ${index + 1}: the id before ':' must be 1-32 letters, digits, '-' or '_'`,
        );
      if (key.length !== 32)
        problems.push(`key ${index + 1}${id ? ` (${id})` : ''}: must be 32 bytes in base64`);
      return { id, key };
    });
  if (keys.length === 0) problems.push('no key given');
  const ids = keys.map((key) => key.id);
  if (new Set(ids).size !== ids.length) problems.push('key ids must be unique');
  if (problems.length > 0) throw new EncryptionKeyError(`ENCRYPTION_KEYS: ${problems.join('; ')}`);
  return keys;
}

export function generateEncryptionKey(id: string): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}

/**
 * AES-256-GCM with a key id in every value, so old rows stay readable after the active key
 * changes. The context (which column a value belongs to) is authenticated, so a ciphertext
 * copied into another column does not decrypt.
 */
export class SecretBox {
  private readonly byId: ReadonlyMap<string, Buffer>;
  readonly activeKeyId: string;

  constructor(keys: readonly EncryptionKey[]) {
    const active = keys[0];
    if (!active) throw new EncryptionKeyError('At least one encryption key is required');
    this.activeKeyId = active.id;
    this.byId = new Map(keys.map((key) => [key.id, key.key]));
  }

  encrypt(plaintext: string, context: string): string {
    const key = this.byId.get(this.activeKeyId) as Buffer;
    const iv = randomBytes(12);
    const cipher = createCipheriv(ALGORITHM, key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [
      VERSION,
      this.activeKeyId,
      iv.toString('base64url'),
      tag.toString('base64url'),
      ciphertext.toString('base64url'),
    ].join('.');
  }

  decrypt(value: string, context: string): string {
    const [version, keyId, iv, tag, ciphertext] = value.split('.');
    if (
      version !== VERSION ||
      !keyId ||
      iv === undefined ||
      tag === undefined ||
      ciphertext === undefined
    ) {
      throw new EncryptionKeyError('Not a value encrypted by Junction');
    }
    const key = this.byId.get(keyId);
    if (!key)
      throw new EncryptionKeyError(
        `Encrypted under key "${keyId}", which is not in ENCRYPTION_KEYS`,
      );
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(ciphertext, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }

  isUnderActiveKey(value: string): boolean {
    return value.split('.', 2)[1] === this.activeKeyId;
  }

  encryptJson(value: unknown, context: string): string {
    return this.encrypt(JSON.stringify(value), context);
  }

  decryptJson<T>(value: string, context: string): T {
    return JSON.parse(this.decrypt(value, context)) as T;
  }
}

import { generateEncryptionKey, parseEncryptionKeys, SecretBox } from './secret-box';

describe('SecretBox', () => {
  const oldKey = generateEncryptionKey('old');
  const newKey = generateEncryptionKey('new');

  it('round-trips and never leaves the plaintext visible', () => {
    const box = new SecretBox(parseEncryptionKeys(oldKey));
    const sealed = box.encrypt('super-secret-token', 'connection.credentials');
    expect(sealed).not.toContain('super-secret-token');
    expect(sealed.startsWith('v1.old.')).toBe(true);
    expect(box.decrypt(sealed, 'connection.credentials')).toBe('super-secret-token');
  });

  it('uses a fresh nonce every time', () => {
    const box = new SecretBox(parseEncryptionKeys(oldKey));
    expect(box.encrypt('same', 'c')).not.toBe(box.encrypt('same', 'c'));
  });

  it('refuses a value moved to another column or tampered with', () => {
    const box = new SecretBox(parseEncryptionKeys(oldKey));
    const sealed = box.encrypt('value', 'integration.client_secret');
    expect(() => box.decrypt(sealed, 'connection.credentials')).toThrow();
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}A`;
    expect(() => box.decrypt(tampered, 'integration.client_secret')).toThrow();
  });

  it('reads values of a previous key after rotation and writes under the new one', () => {
    const sealedOld = new SecretBox(parseEncryptionKeys(oldKey)).encrypt('value', 'c');
    const rotated = new SecretBox(parseEncryptionKeys(`${newKey},${oldKey}`));
    expect(rotated.decrypt(sealedOld, 'c')).toBe('value');
    expect(rotated.isUnderActiveKey(sealedOld)).toBe(false);
    expect(rotated.isUnderActiveKey(rotated.encrypt('value', 'c'))).toBe(true);
    expect(() => new SecretBox(parseEncryptionKeys(newKey)).decrypt(sealedOld, 'c')).toThrow(
      /"old"/,
    );
  });

  it('lists every problem of a key list', () => {
    expect(() => parseEncryptionKeys('bad id:abc,k2:short')).toThrow(
      /key 1.*id.*key 1.*32 bytes.*key 2 \(k2\): must be 32 bytes/,
    );
    expect(() => parseEncryptionKeys(`${oldKey},${oldKey}`)).toThrow(/unique/);
  });
});

import { createHash } from 'node:crypto';

/**
 * The digest that tells a record's content apart: of its JSON text as stored. The sync runtime
 * hashes what scripts save, the records store what `batchUpdate` merges, with this one function,
 * so a merged record saved again with the same content is found unchanged.
 */
export function contentHash(json: string): string {
  return createHash('sha256').update(json).digest('base64url');
}

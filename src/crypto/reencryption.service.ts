import { Injectable } from '@nestjs/common';
import { ENCRYPTED_COLUMNS, ReencryptionRepository } from './reencryption.repository';
import { SecretBox } from './secret-box';

const BATCH = 500;

/** Moves every encrypted value under the active key, so older keys can be retired. */
@Injectable()
export class ReencryptionService {
  constructor(
    private readonly repository: ReencryptionRepository,
    private readonly secrets: SecretBox,
  ) {}

  async reencryptAll(): Promise<number> {
    let total = 0;
    for (const target of ENCRYPTED_COLUMNS) {
      for (;;) {
        const rewritten = await this.repository.rewriteBatch(
          target,
          this.secrets.activeKeyId,
          BATCH,
          (value) =>
            this.secrets.encrypt(this.secrets.decrypt(value, target.context), target.context),
        );
        total += rewritten;
        if (rewritten < BATCH) break;
      }
    }
    return total;
  }
}

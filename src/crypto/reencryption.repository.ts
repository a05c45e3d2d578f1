import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ENCRYPTION_CONTEXTS } from './encryption-contexts';

/** Every encrypted column, with the context its values were sealed under. */
export const ENCRYPTED_COLUMNS = [
  {
    table: 'integrations',
    column: 'oauth_client_secret',
    context: ENCRYPTION_CONTEXTS.clientSecret,
  },
  { table: 'connections', column: 'credentials', context: ENCRYPTION_CONTEXTS.credentials },
  {
    table: 'environment_variables',
    column: 'value',
    context: ENCRYPTION_CONTEXTS.environmentVariable,
  },
  { table: 'environments', column: 'webhook_secret', context: ENCRYPTION_CONTEXTS.webhookSecret },
] as const;

export type EncryptedColumn = (typeof ENCRYPTED_COLUMNS)[number];

/**
 * Operator-wide by nature: re-encryption walks every environment's rows. Each batch is one
 * transaction holding row locks only for its own rows.
 */
@Injectable()
export class ReencryptionRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Rewrites up to `limit` values not yet under `activeKeyId`; returns how many. */
  async rewriteBatch(
    target: EncryptedColumn,
    activeKeyId: string,
    limit: number,
    reseal: (value: string) => string,
  ): Promise<number> {
    return this.db.transaction(async (manager) => {
      const rows: Array<{ row: string; value: string }> = await manager.query(
        `SELECT ctid::text AS row, ${target.column} AS value FROM ${target.table}
         WHERE ${target.column} IS NOT NULL AND split_part(${target.column}, '.', 2) <> $1
         LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [activeKeyId, limit],
      );
      for (const { row, value } of rows) {
        await manager.query(
          `UPDATE ${target.table} SET ${target.column} = $1 WHERE ctid = $2::tid`,
          [reseal(value), row],
        );
      }
      return rows.length;
    });
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Records keep their JSON as the text that was saved (`json`) instead of `jsonb`: reading a
 * record back then sends that text as it is, where `jsonb` rebuilt it for every record of every
 * read (two thirds of PostgreSQL's CPU in a full export), and saving skips the conversion too.
 * Keys keep the order the script gave them (`batchUpdate` merges in Node and keeps it too).
 * Rewrites the table: plan a maintenance window for large stores.
 */
export class RecordsJsonText1763820000000 implements MigrationInterface {
  name = 'RecordsJsonText1763820000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE records ALTER COLUMN data TYPE json USING data::json');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE records ALTER COLUMN data TYPE jsonb USING data::jsonb');
  }
}

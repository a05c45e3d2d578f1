import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1763770000000 implements MigrationInterface {
  name = 'Initial1763770000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE environments (
        id serial PRIMARY KEY,
        name text NOT NULL UNIQUE,
        secret_key_hash text NOT NULL UNIQUE,
        webhook_url text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE environments');
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Connections1763780000000 implements MigrationInterface {
  name = 'Connections1763780000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE custom_providers (
        environment_id integer NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        name text NOT NULL,
        definition jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (environment_id, name)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE integrations (
        id serial PRIMARY KEY,
        environment_id integer NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        unique_key text NOT NULL,
        provider text NOT NULL,
        oauth_client_id text NULL,
        oauth_client_secret text NULL,
        oauth_scopes text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (environment_id, unique_key)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE connections (
        id serial PRIMARY KEY,
        environment_id integer NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        integration_id integer NOT NULL REFERENCES integrations(id) ON DELETE RESTRICT,
        connection_id text NOT NULL,
        credentials text NOT NULL,
        credentials_version integer NOT NULL DEFAULT 1,
        credentials_expires_at timestamptz NULL,
        connection_config jsonb NOT NULL DEFAULT '{}'::jsonb,
        metadata jsonb NULL,
        refresh_lease_owner text NULL,
        refresh_lease_until timestamptz NULL,
        refresh_failures integer NOT NULL DEFAULT 0,
        last_refresh_error text NULL,
        last_refresh_failure_at timestamptz NULL,
        last_refresh_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (integration_id, connection_id)
      )
    `);
    await queryRunner.query(
      'CREATE INDEX connections_environment_connection_id ON connections (environment_id, connection_id)',
    );
    await queryRunner.query(`
      CREATE TABLE environment_variables (
        environment_id integer NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        name text NOT NULL,
        value text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (environment_id, name)
      )
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE environment_variables');
    await queryRunner.query('DROP TABLE connections');
    await queryRunner.query('DROP TABLE integrations');
    await queryRunner.query('DROP TABLE custom_providers');
  }
}

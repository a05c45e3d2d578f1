import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Deployed scripts (versioned bundles), per-connection sync state, sync runs and the records store. */
export class Syncs1763790000000 implements MigrationInterface {
  name = 'Syncs1763790000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE scripts (
        id serial PRIMARY KEY,
        environment_id integer NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        integration_id integer NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('sync', 'action')),
        name text NOT NULL,
        version integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (integration_id, kind, name)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE script_versions (
        script_id integer NOT NULL REFERENCES scripts(id) ON DELETE CASCADE,
        version integer NOT NULL,
        hash text NOT NULL,
        definition jsonb NOT NULL,
        bundle text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (script_id, version)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE sync_states (
        connection_id integer NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
        sync_name text NOT NULL,
        frequency_override text NULL,
        paused boolean NULL,
        checkpoint jsonb NULL,
        last_sync_date timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (connection_id, sync_name)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE sync_runs (
        id bigserial PRIMARY KEY,
        connection_id integer NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
        sync_name text NOT NULL,
        script_id integer NULL REFERENCES scripts(id) ON DELETE SET NULL,
        script_version integer NOT NULL,
        workflow_id text NOT NULL,
        temporal_run_id text NOT NULL UNIQUE,
        type text NOT NULL CHECK (type IN ('INITIAL', 'INCREMENTAL')),
        status text NOT NULL CHECK (status IN ('RUNNING', 'SUCCESS', 'ERROR', 'CANCELLED')),
        started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        finished_at timestamptz NULL,
        results jsonb NOT NULL DEFAULT '{}'::jsonb,
        error jsonb NULL,
        attempts integer NOT NULL DEFAULT 1
      )
    `);
    await queryRunner.query(
      'CREATE INDEX sync_runs_connection_sync ON sync_runs (connection_id, sync_name, id DESC)',
    );
    await queryRunner.query(`
      CREATE TABLE records (
        id bigserial PRIMARY KEY,
        connection_id integer NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
        model text NOT NULL,
        external_id text NOT NULL,
        data jsonb NOT NULL,
        hash text NOT NULL,
        first_seen_at timestamptz NOT NULL,
        last_modified_at timestamptz NOT NULL,
        deleted_at timestamptz NULL,
        last_action text NOT NULL CHECK (last_action IN ('ADDED', 'UPDATED', 'DELETED')),
        sync_run_id bigint NULL,
        seen_run_id bigint NULL,
        UNIQUE (connection_id, model, external_id)
      )
    `);
    await queryRunner.query(
      'CREATE INDEX records_keyset ON records (connection_id, model, last_modified_at, id)',
    );
    // runChanges counts a run's rows without scanning every record of the connection.
    await queryRunner.query(
      'CREATE INDEX records_sync_run ON records (connection_id, sync_run_id) WHERE sync_run_id IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE records');
    await queryRunner.query('DROP TABLE sync_runs');
    await queryRunner.query('DROP TABLE sync_states');
    await queryRunner.query('DROP TABLE script_versions');
    await queryRunner.query('DROP TABLE scripts');
  }
}

import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change to a connection or an integration announces itself on the `junction_changes`
 * channel (`connection:<id>`, `integration:<id>`), so each process's connection cache drops the
 * entry within a round trip, whichever process or tool made the change.
 */
export class ChangeNotifications1763810000000 implements MigrationInterface {
  name = 'ChangeNotifications1763810000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION junction_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          PERFORM pg_notify('junction_changes', TG_ARGV[0] || ':' || OLD.id);
        ELSE
          PERFORM pg_notify('junction_changes', TG_ARGV[0] || ':' || NEW.id);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER connections_notify_change AFTER INSERT OR UPDATE OR DELETE ON connections
      FOR EACH ROW EXECUTE FUNCTION junction_notify_change('connection')`);
    await queryRunner.query(`
      CREATE TRIGGER integrations_notify_change AFTER UPDATE OR DELETE ON integrations
      FOR EACH ROW EXECUTE FUNCTION junction_notify_change('integration')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER integrations_notify_change ON integrations`);
    await queryRunner.query(`DROP TRIGGER connections_notify_change ON connections`);
    await queryRunner.query(`DROP FUNCTION junction_notify_change()`);
  }
}

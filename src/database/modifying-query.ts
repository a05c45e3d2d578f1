import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs an UPDATE/DELETE ... RETURNING and gives back its rows. TypeORM's `query` answers such
 * statements with `[rows, rowCount]` instead of the rows, which silently makes every
 * `rows.length > 0` check true.
 */
export async function modifyingQuery<Row>(
  runner: DataSource | EntityManager,
  sql: string,
  parameters: unknown[],
): Promise<Row[]> {
  const result: unknown = await runner.query(sql, parameters);
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as Row[];
  }
  return result as Row[];
}

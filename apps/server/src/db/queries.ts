import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from './types.js';

/** How many rows `query` matches (COUNT(*)). */
export async function countRows<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
): Promise<number> {
  const row = await query
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .$castTo<{ count: number | string }>()
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Ends a transaction begun by hand on `connection` (BEGIN IMMEDIATE, for SQLite): commits once
 * `work` succeeds, rolls back and rethrows when it fails.
 */
export async function commitOrRollback<T>(
  connection: Kysely<Database>,
  work: () => Promise<T>,
): Promise<T> {
  try {
    const result = await work();
    await sql`commit`.execute(connection);
    return result;
  } catch (error) {
    await sql`rollback`.execute(connection);
    throw error;
  }
}

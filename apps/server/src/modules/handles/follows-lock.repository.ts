import { sql } from 'kysely';
import type { Db, Executor } from '../../db/index.js';
import { commitOrRollback } from '../../db/queries.js';

/**
 * Runs `work` in a transaction that no other change to this user's follows can interleave with,
 * so what it counts still holds when it inserts, whichever process or API node runs the other.
 * PostgreSQL: the user's row stays locked until the end (FOR NO KEY UPDATE: the writers that
 * only reference the user, such as queued notifications, are not held up, and cannot close a
 * deadlock with it). SQLite: BEGIN IMMEDIATE takes the database's one writer lock before the
 * first read; a deferred transaction would read, then fail at its first write when another
 * process (the CLI) wrote meanwhile. `work` must run every query on the executor it is given:
 * the pool connection or SQLite's one connection is held by the transaction.
 */
export async function withFollowsLocked<T>(
  db: Pick<Db, 'db' | 'dialect'>,
  userId: number,
  work: (trx: Executor) => Promise<T>,
): Promise<T> {
  if (db.dialect === 'postgres') {
    return db.db.transaction().execute(async (trx) => {
      await trx
        .selectFrom('users')
        .select('id')
        .where('id', '=', userId)
        .forNoKeyUpdate()
        .execute();
      return work(trx);
    });
  }
  // Kysely's transactions on SQLite begin deferred, so this one is opened by hand on the one
  // connection, which Kysely keeps for it until the callback returns.
  return db.db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    return commitOrRollback(connection, () => work(connection));
  });
}

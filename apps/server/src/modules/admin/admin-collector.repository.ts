import type { ExpressionBuilder, Transaction } from 'kysely';
import type { Database, Executor } from '../../db/index.js';
import { requeueFailedHandle, type HandleRow } from '../handles/handles.repository.js';

/** A handle with how many users follow it. */
export interface HandleWithUsersRow extends HandleRow {
  users_count: number;
}

const usersCount = (eb: ExpressionBuilder<Database, 'handles'>) =>
  eb
    .selectFrom('user_handles')
    .select((sub) => sub.fn.countAll<number>().as('count'))
    .whereRef('user_handles.handle_id', '=', 'handles.id')
    .as('users_count');

const withUsersCount = (row: HandleRow & { users_count: number | string | null }) => ({
  ...row,
  users_count: Number(row.users_count ?? 0),
});

/** Every handle somebody follows, by name. */
export async function listFollowedHandles(db: Executor): Promise<HandleWithUsersRow[]> {
  const rows = await db
    .selectFrom('handles')
    .selectAll('handles')
    .select(usersCount)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('user_handles')
          .select('user_handles.id')
          .whereRef('user_handles.handle_id', '=', 'handles.id'),
      ),
    )
    .orderBy('handles.username')
    .orderBy('handles.id')
    .execute();
  return rows.map(withUsersCount);
}

export async function findHandleWithUsers(
  db: Executor,
  id: number,
): Promise<HandleWithUsersRow | undefined> {
  const row = await db
    .selectFrom('handles')
    .selectAll('handles')
    .select(usersCount)
    .where('handles.id', '=', id)
    .executeTakeFirst();
  return row && withUsersCount(row);
}

/** Marks a handle stopped by an admin; false when it was already stopped (or is gone). */
export async function markStopped(db: Executor, id: number, now: string): Promise<boolean> {
  const result = await db
    .updateTable('handles')
    .set({ paused: true, updated_at: now })
    .where('id', '=', id)
    .where('paused', '=', false)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Lets a stopped or failed handle be collected again, due at once: a stopped one resumes where
 * it stopped, a failed one is tried again from its pending state. False when it was neither.
 */
export async function markStarted(db: Executor, id: number, now: string): Promise<boolean> {
  const resumed = await db
    .updateTable('handles')
    .set({ paused: false, next_poll_at: null, updated_at: now })
    .where('id', '=', id)
    .where('paused', '=', true)
    .executeTakeFirst();
  const retried = await requeueFailedHandle(db, id, now);
  return resumed.numUpdatedRows > 0n || retried !== undefined;
}

/**
 * Deletes a handle for everybody. Its links, tweets, profile and metric snapshots and outbox
 * rows go with it (ON DELETE CASCADE). False when it was already gone.
 */
export async function deleteHandle(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('handles').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Deletes everything collected for a handle (tweets and their kept word counts, profile and
 * metric snapshots, its pending and past notifications) and puts it back to a backfill that has
 * not begun, over the days its current followers asked for. The account (name, X id, profile counts), its followers and an
 * admin's stop stay. `data_version` moves on, so cached analytics of it are dropped. Run it in
 * a transaction; undefined when the handle is gone.
 */
export async function resetHandleData(
  trx: Transaction<Database>,
  id: number,
  now: string,
): Promise<HandleRow | undefined> {
  for (const table of [
    'tweet_word_days',
    'tweets',
    'tweet_metric_snapshots',
    'profile_snapshots',
    'notification_outbox',
  ] as const) {
    await trx.deleteFrom(table).where('handle_id', '=', id).execute();
  }
  const requested = await trx
    .selectFrom('user_handles')
    .select((eb) => eb.fn.max('backfill_days').as('days'))
    .where('handle_id', '=', id)
    .executeTakeFirst();
  const days = requested?.days ?? null;
  return trx
    .updateTable('handles')
    .set((eb) => ({
      backfill_status: 'pending',
      backfill_progress: 0,
      ...(days !== null ? { backfill_days_covered: Number(days) } : {}),
      backfill_target_start: null,
      backfill_window_end: null,
      oldest_covered_at: null,
      newest_tweet_id: null,
      initial_backfill_complete: false,
      backfill_completed_at: null,
      estimated_completion: null,
      total_tweets_collected: 0,
      last_poll_at: null,
      next_poll_at: null,
      quiet_polls: 0,
      catch_up_cursor: null,
      catch_up_newest_id: null,
      catch_up_found: 0,
      last_error: null,
      data_version: eb('data_version', '+', 1),
      updated_at: now,
    }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

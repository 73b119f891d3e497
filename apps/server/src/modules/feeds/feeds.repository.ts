import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../db/index.js';
import type { FeedTokensTable } from '../../db/types.js';
import { postIdLength } from '../../db/posting-order.js';

export type FeedTokenRow = Selectable<FeedTokensTable>;

export function findFeedToken(db: Executor, userId: number): Promise<FeedTokenRow | undefined> {
  return db.selectFrom('feed_tokens').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/**
 * Stores a user's first token unless they have one already (two first visits at once keep one),
 * and returns the row that holds.
 */
export async function insertFeedTokenOnce(db: Executor, row: FeedTokenRow): Promise<FeedTokenRow> {
  await db
    .insertInto('feed_tokens')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
  const stored = await findFeedToken(db, row.user_id);
  if (!stored) throw new Error('feed token not stored');
  return stored;
}

/** Replaces a user's token (or makes the first): the old one stops working with this write. */
export async function replaceFeedToken(db: Executor, row: FeedTokenRow): Promise<FeedTokenRow> {
  return db
    .insertInto('feed_tokens')
    .values(row)
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        token_hash: row.token_hash,
        token_sealed: row.token_sealed,
        created_at: row.created_at,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The user whose token has this hash, or undefined. */
export async function findFeedUser(db: Executor, tokenHash: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('feed_tokens')
    .select('user_id')
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row?.user_id;
}

/** A handle the user follows, by name whatever its case, with the time they linked it. */
export function findFollowedHandle(db: Executor, userId: number, username: string) {
  return db
    .selectFrom('user_handles')
    .innerJoin('handles', 'handles.id', 'user_handles.handle_id')
    .select(['handles.id', 'handles.username', 'handles.display_name', 'user_handles.added_at'])
    .where('user_handles.user_id', '=', userId)
    .where(sql<string>`lower(handles.username)`, '=', username.toLowerCase())
    .executeTakeFirst();
}

/** A handle's latest tweets, newest first, ties by post id (a feed's items). */
export function latestTweets(db: Executor, handleId: number, limit: number) {
  return db
    .selectFrom('tweets')
    .selectAll()
    .where('handle_id', '=', handleId)
    .orderBy('created_at', 'desc')
    .orderBy(postIdLength('tweet_id'), 'desc')
    .orderBy('tweet_id', 'desc')
    .limit(limit)
    .execute();
}

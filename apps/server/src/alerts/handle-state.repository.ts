/**
 * What the handle rules read of their handles (evaluation.ts, the sweep): for each handle, the
 * two follower counts the follower rule compares, and when it last posted. Both are worked out
 * in the database, so a sweep over 1,000 handles reads about 2,000 snapshots and 1,000 index
 * entries instead of every snapshot of the last two days and every post's time.
 */
import { sql } from 'kysely';
import { isPostgres, type Executor } from '../db/index.js';

/** A follower count as stored. */
export interface FollowerCount {
  handle_id: number;
  taken_at: string;
  followers: number;
}

/**
 * For each handle, its latest snapshot taken at `now` or before (and no longer ago than
 * `lookbackMs`), and the earliest one of the day up to that one, both within that lookback:
 * the two counts the follower rule compares (handle-rules.ts, `followerChange`). A handle with
 * one snapshot in that day gives one row; one with none, no row.
 */
export async function followerCounts(
  db: Executor,
  handleIds: readonly number[],
  now: number,
  lookbackMs: number,
): Promise<FollowerCount[]> {
  if (handleIds.length === 0) return [];
  const nowIso = new Date(now).toISOString();
  const since = new Date(now - lookbackMs).toISOString();
  // A day before the latest snapshot, in the stored form (toISOString's): strings compare as times.
  const dayBefore = isPostgres(db)
    ? sql`to_char((latest.taken_at::timestamptz - interval '24 hours') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : sql`strftime('%Y-%m-%dT%H:%M:%fZ', latest.taken_at, '-1 day')`;
  // Each count is one index look-up per handle (profile_snapshots_handle_taken_idx): the
  // latest, then the earliest of the day before it, then their rows.
  const { rows } = await sql<FollowerCount>`
    with latest as (
      select handles.id as handle_id, (
        select max(taken_at) from profile_snapshots as snapshot
        where snapshot.handle_id = handles.id
          and snapshot.taken_at >= ${since} and snapshot.taken_at <= ${nowIso}
      ) as taken_at
      from handles where handles.id in (${sql.join(handleIds)})
    ), earliest as (
      select latest.handle_id, (
        select min(taken_at) from profile_snapshots as day
        where day.handle_id = latest.handle_id
          and day.taken_at >= ${dayBefore} and day.taken_at >= ${since}
          and day.taken_at <= latest.taken_at
      ) as taken_at
      from latest where latest.taken_at is not null
    )
    select snapshot.handle_id, snapshot.taken_at, snapshot.followers
    from latest join profile_snapshots as snapshot
      on snapshot.handle_id = latest.handle_id and snapshot.taken_at = latest.taken_at
    union
    select snapshot.handle_id, snapshot.taken_at, snapshot.followers
    from earliest join profile_snapshots as snapshot
      on snapshot.handle_id = earliest.handle_id and snapshot.taken_at = earliest.taken_at`.execute(
    db,
  );
  return rows;
}

/** When each handle last posted (handles without posts are left out). */
export function lastPostTimes(
  db: Executor,
  handleIds: readonly number[],
): Promise<{ handle_id: number; last: string | null }[]> {
  if (handleIds.length === 0) return Promise.resolve([]);
  // One index look-up per handle (tweets_handle_created_idx), not a scan of its posts.
  return db
    .selectFrom('handles')
    .select((eb) => [
      'handles.id as handle_id',
      eb
        .selectFrom('tweets')
        .select((inner) => inner.fn.max('tweets.created_at').as('last'))
        .whereRef('tweets.handle_id', '=', 'handles.id')
        .as('last'),
    ])
    .where('handles.id', 'in', [...handleIds])
    .execute();
}

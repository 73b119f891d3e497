import type { Executor } from '../../db/index.js';
import type { HandleStatus } from '../../db/types.js';

/** A user as the admin list shows them: the account, how many handles, when last active. */
export interface AdminUserRow {
  id: number;
  username: string;
  email: string;
  is_admin: boolean | number;
  is_super_admin: boolean | number;
  created_at: string;
  last_login_at: string | null;
  /** Newest `last_seen_at` of any of the user's sessions. */
  last_active_at: string | null;
  handles_count: number | string | null;
}

function adminUsers(db: Executor) {
  return db
    .selectFrom('users')
    .select([
      'users.id',
      'users.username',
      'users.email',
      'users.is_admin',
      'users.is_super_admin',
      'users.created_at',
      'users.last_login_at',
    ])
    .select((eb) => [
      eb
        .selectFrom('user_handles')
        .select((sub) => sub.fn.countAll<number>().as('count'))
        .whereRef('user_handles.user_id', '=', 'users.id')
        .as('handles_count'),
      eb
        .selectFrom('sessions')
        .select((sub) => sub.fn.max('sessions.last_seen_at').as('last_seen_at'))
        .whereRef('sessions.user_id', '=', 'users.id')
        .as('last_active_at'),
    ]);
}

/** Every user, by id. */
export function listAdminUsers(db: Executor): Promise<AdminUserRow[]> {
  return adminUsers(db).orderBy('users.id').execute();
}

export function findAdminUser(db: Executor, id: number): Promise<AdminUserRow | undefined> {
  return adminUsers(db).where('users.id', '=', id).executeTakeFirst();
}

/** A handle of the system with how many users follow it. */
export interface FollowedHandleRow {
  id: number;
  username: string;
  created_at: string;
  followers_count: number | null;
  backfill_status: HandleStatus;
  backfill_progress: number;
  total_tweets_collected: number;
  paused: boolean | number;
  last_error: string | null;
  users_count: number | string;
}

/** Every handle at least one user follows, by id. */
export function listFollowedHandles(db: Executor): Promise<FollowedHandleRow[]> {
  const followers = db
    .selectFrom('user_handles')
    .select('handle_id')
    .select((eb) => eb.fn.countAll<number>().as('users_count'))
    .groupBy('handle_id')
    .as('followers');
  return db
    .selectFrom('handles')
    .innerJoin(followers, 'followers.handle_id', 'handles.id')
    .select([
      'handles.id',
      'handles.username',
      'handles.created_at',
      'handles.followers_count',
      'handles.backfill_status',
      'handles.backfill_progress',
      'handles.total_tweets_collected',
      'handles.paused',
      'handles.last_error',
      'followers.users_count',
    ])
    .orderBy('handles.id')
    .execute();
}

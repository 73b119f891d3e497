import {
  listHandlesDueForProfile,
  usernameTaken,
  type HandleRow,
} from '../modules/handles/handles.repository.js';
import { insertProfileSnapshot } from '../modules/tweets/tweets.repository.js';
import { runBatchedRound } from './job-steps.js';
import { msAfter, permanentErrorMessage, saveHandle, type CollectorContext } from './context.js';
import { SourceError, type SourceProfile, type UsersById } from '../domain/tweet-source.js';

/** Users per lookup request (X's maximum for GET /2/users?ids=). */
export const PROFILE_BATCH = 100;
/** Requests one profile round sends at most; what is left is due again on the next round. */
const MAX_BATCHES_PER_ROUND = 10;

/**
 * One profile round: the handles whose profile was last read PROFILE_REFRESH_MINUTES ago or
 * more, looked up by id, 100 per request. Follower counts and a profile snapshot are stored;
 * an account renamed on X keeps being followed by its id and shows its new username. Returns
 * how many requests were sent.
 */
export function runProfileRefresh(
  ctx: CollectorContext,
  signal: AbortSignal,
  skipHandleIds: ReadonlySet<number> = new Set(),
): Promise<number> {
  return runBatchedRound(ctx, signal, {
    // Profile reads are part of monitoring new tweets: cut last, with the polls.
    work: 'poll',
    batchSize: PROFILE_BATCH,
    maxBatches: MAX_BATCHES_PER_ROUND,
    // Rate limited or X unavailable: the same handles are due on the next round.
    failureMessage: 'profile refresh failed: will retry',
    listDue: async () =>
      (
        await listHandlesDueForProfile(
          ctx.db.db,
          msAfter(ctx.now(), -ctx.profileRefreshMs),
          PROFILE_BATCH,
        )
      ).filter((handle) => !skipHandleIds.has(handle.id)),
    read: (due) =>
      ctx.source.usersByIds(
        due.map((handle) => handle.x_user_id).filter((id): id is string => id !== null),
        signal,
      ),
    store: (due, found) => storeProfiles(ctx, due, found),
  });
}

/** Stores each handle's profile, or why it could not be read. */
async function storeProfiles(
  ctx: CollectorContext,
  due: readonly HandleRow[],
  found: UsersById,
): Promise<void> {
  const byId = new Map(found.profiles.map((profile) => [profile.xUserId, profile]));
  const missing = new Map(found.missing.map((entry) => [entry.xUserId, entry.kind]));
  const at = ctx.now().toISOString();
  for (const handle of due) {
    const profile = byId.get(handle.x_user_id ?? '');
    if (profile) {
      await storeProfile(ctx, handle, profile, at);
      continue;
    }
    const kind = missing.get(handle.x_user_id ?? '') ?? 'not_found';
    const message = permanentErrorMessage(new SourceError(kind, kind), handle.username);
    await saveHandle(ctx, handle, { profile_checked_at: at, last_error: message });
  }
}

/** Stores a profile read: counts, a snapshot, and a new username when the account was renamed. */
async function storeProfile(
  ctx: CollectorContext,
  handle: HandleRow,
  profile: SourceProfile,
  at: string,
): Promise<void> {
  const renamed =
    profile.username !== handle.username &&
    !(await usernameTaken(ctx.db.db, profile.username, handle.id));
  if (renamed) {
    ctx.log.info({ from: handle.username, to: profile.username }, 'followed account renamed on X');
  }
  await saveHandle(ctx, handle, {
    ...(renamed ? { username: profile.username } : {}),
    display_name: profile.name,
    followers_count: profile.followersCount,
    following_count: profile.followingCount,
    tweet_count: profile.tweetCount,
    like_count: profile.likeCount,
    profile_checked_at: at,
    // A profile read again clears an earlier 'not found' (the account came back).
    ...(handle.last_error !== null && handle.last_error.startsWith(`@${handle.username} `)
      ? { last_error: null }
      : {}),
  });
  await insertProfileSnapshot(ctx.db.db, handle.id, profile, at);
}

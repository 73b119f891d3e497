/** The user reads of the x-api source: one by username, up to 100 by id. */
import { SourceError, type SourceProfile, type UsersById } from '../../domain/tweet-source.js';
import { reportBilledReads, userReads } from './x-api-billing.js';
import type { XApiContext } from './x-api-client.js';
import { toProfile } from './x-api-mapping.js';
import { missingUsers, userProblem } from './x-api-problems.js';
import { USER_FIELDS, type WireUser } from './x-api-wire.js';
import { userIdsToAsk } from '../x-ids.js';

const HANDLE_RE = /^[A-Za-z0-9_]{1,15}$/;

/** TweetSource.lookupUser: the profile of a username. */
export async function lookupUser(
  { client, onBilledReads }: XApiContext,
  username: string,
  signal?: AbortSignal,
): Promise<SourceProfile> {
  if (!HANDLE_RE.test(username)) {
    throw new SourceError('not_found', `Not a valid X username: ${username}`);
  }
  const body = await client.request<WireUser>(
    'users/by/username',
    `/2/users/by/username/${encodeURIComponent(username)}`,
    { 'user.fields': USER_FIELDS },
    signal,
  );
  const user = body.data;
  if (!user) {
    throw (
      userProblem(body, `Could not find user ${username}`) ??
      new SourceError('not_found', `Could not find user ${username}`)
    );
  }
  await reportBilledReads(onBilledReads, userReads([user]));
  return toProfile(user);
}

/**
 * TweetSource.usersByIds. Up to 100 distinct ids per call: splitting a longer list is the
 * caller's job (each batch is one request against a 300-per-15-minutes budget), so more throws a
 * RangeError instead of silently dropping handles from a refresh. Ids that cannot be X ids are
 * reported not_found without asking X, which would refuse the whole batch for them.
 */
export async function usersByIds(
  { client, onBilledReads }: XApiContext,
  ids: string[],
  signal?: AbortSignal,
): Promise<UsersById> {
  const { asked, missing } = userIdsToAsk(ids);
  if (asked.length === 0) return { profiles: [], missing };
  const body = await client.request<WireUser[]>(
    'users',
    '/2/users',
    { ids: asked.join(','), 'user.fields': USER_FIELDS },
    signal,
  );
  const users = (body.data ?? []).filter((user) => asked.includes(user.id));
  await reportBilledReads(onBilledReads, userReads(users));
  const profiles = users.map(toProfile);
  const returned = new Set(profiles.map((profile) => profile.xUserId));
  return { profiles, missing: [...missing, ...missingUsers(body, asked, returned)] };
}

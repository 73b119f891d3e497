import type { UsersById } from '../domain/tweet-source.js';

/** An X id: a decimal snowflake of at most 19 digits. */
export const ID_RE = /^[0-9]{1,19}$/;
/** The most ids X takes in one lookup (users and posts by id). */
export const MAX_IDS = 100;

/**
 * The user ids worth asking X for, once each; ids that cannot be X ids are answered as missing
 * ('not_found') without a request. More than MAX_IDS distinct ids is the caller's mistake.
 */
export function userIdsToAsk(ids: readonly string[]): {
  asked: string[];
  missing: UsersById['missing'];
} {
  const distinct = [...new Set(ids)];
  if (distinct.length > MAX_IDS) {
    throw new RangeError(`usersByIds takes at most ${MAX_IDS} ids, got ${distinct.length}`);
  }
  return {
    asked: distinct.filter((id) => ID_RE.test(id)),
    missing: distinct
      .filter((id) => !ID_RE.test(id))
      .map((xUserId) => ({ xUserId, kind: 'not_found' as const })),
  };
}

/** The post ids worth asking X for: valid ids, once each, at most MAX_IDS. */
export function tweetIdsToAsk(ids: readonly string[]): string[] {
  return [...new Set(ids.filter((id) => ID_RE.test(id)))].slice(0, MAX_IDS);
}

/**
 * The `demo` tweet source: deterministic synthetic accounts and tweets, so Perch runs with no
 * credentials. Every value is a pure function of the lower-cased handle, an hour bucket and (for
 * metrics and follower counts) the current instant, so two processes agree on every tweet and
 * nothing is ever stored: a page is generated on demand, hour by hour, and memory does not grow
 * with history.
 *
 * Ids (demo/demo-ids.ts):
 * - user id: the handle itself, read as a base-38 number (a-z, 0-9, _), in decimal. Reversible, so
 *   `timeline({ xUserId })` works in a fresh process. Up to 19 digits for handles of 12
 *   characters or fewer; longer handles give longer (still decimal) ids.
 * - tweet id: an X-style snowflake `(ms since 2010-11-04) << 22 | handleTag << 12 | sequence`, so
 *   ids grow with time, compare as BigInt, fit in 64 bits and encode their own creation time.
 *   The 10-bit handle tag is a hash; `tweetsByIds` resolves it through the handles this process
 *   has seen (lookupUser or timeline), which the collector always calls first.
 *
 * Accounts in demo/demo-personas.ts, when they post in demo/demo-slots.ts, what in
 * demo/demo-tweet.ts, and the pages in demo/demo-timeline.ts.
 */
import type {
  SourceProfile,
  SourceTweet,
  TimelinePage,
  TweetSource,
  UsersById,
} from '../domain/tweet-source.js';
import { sleep } from '../lib/sleep.js';
import { demoAccount } from './demo/demo-account.js';
import { existingPersona, profileOf, profilesByIds } from './demo/demo-personas.js';
import { findTweets, readTimeline } from './demo/demo-timeline.js';

export { DEMO_CHALLENGE } from './demo/demo-account.js';
export { demoUserId } from './demo/demo-ids.js';
export { DEMO_RESERVED_HANDLES } from './demo/demo-personas.js';

export interface DemoSourceOptions {
  /** How long every call pretends the network takes (ms); DEMO_PAGE_DELAY_MS, 0 in tests. */
  pageDelayMs: number;
  /** Clock (epoch ms); tests inject one to move time. */
  now?: () => number;
  /**
   * DEMO_CHALLENGE_CODE: when set, the demo account is challenged when collection starts and
   * accepts exactly this code (so the super admin's challenge flow can be tried).
   */
  challengeCode?: string;
}

/**
 * Creates the demo source. Any handle matching X's rules exists except the reserved ones in
 * DEMO_RESERVED_HANDLES; its persona (quiet ~0.5-2 tweets/day, typical ~5-20, prolific ~60-100)
 * comes from the handle's hash. Handles starting with `quiet`, `typical` or `prolific` always get
 * that persona, and handles starting with `bench` post about 2,000 tweets a day so benchmarks
 * get >= 50,000 tweets in a 30-day backfill.
 */
export function createDemoSource(options: DemoSourceOptions): TweetSource {
  const now = options.now ?? Date.now;
  const pause = (signal?: AbortSignal) => sleep(options.pageDelayMs, signal);
  return {
    name: 'demo',
    // Synthetic history has no depth limit.
    timelineDepth: null,
    ...(options.challengeCode ? { account: demoAccount(options.challengeCode, pause) } : {}),
    async lookupUser(username, signal): Promise<SourceProfile> {
      await pause(signal);
      return profileOf(existingPersona(username), now());
    },
    async usersByIds(ids, signal): Promise<UsersById> {
      await pause(signal);
      return profilesByIds(ids, now());
    },
    async timeline(query, signal): Promise<TimelinePage> {
      await pause(signal);
      return readTimeline(query, now);
    },
    async tweetsByIds(ids, signal): Promise<SourceTweet[]> {
      await pause(signal);
      return findTweets(ids, now());
    },
    rateBudget: () => ({ limit: null, remaining: null, resetAt: null }),
    rateStatus: () => ({ endpoints: [], appDay: null }),
  };
}

/**
 * The server's loopback fake of X's web API and sign-in flow, run in the test's process so a
 * journey can read the codes it "emailed" and lock accounts. It is the fake the server's own
 * tests use (apps/server/test/fakes/fake-x-web-server.ts).
 */
/* eslint-disable import-x/no-restricted-paths -- test harness: runs the server's fake in-process */
import {
  startFakeXWebServer,
  type FakeXWebServer,
} from '../../server/test/fakes/fake-x-web-server';
import type { SourceTweet } from '../../server/src/domain/tweet-source';
/* eslint-enable import-x/no-restricted-paths */

export type { FakeXWebServer };

/** `count` posts over the last `days` days, newest first, to the second (as X's web API). */
function recentPosts(seed: number, count: number, days: number): SourceTweet[] {
  const now = Math.floor(Date.now() / 1000) * 1000;
  return Array.from({ length: count }, (_, index) => ({
    id: String(1_900_000_000_000_000_000n + BigInt(seed) * 100_000n + BigInt(count - index)),
    text: `Update ${index + 1} from the field #perch`,
    createdAt: new Date(
      now - 120_000 - Math.floor((index * days * 86_400) / count) * 1000,
    ).toISOString(),
    lang: 'en',
    likeCount: (index * 7) % 90,
    retweetCount: index % 11,
    replyCount: index % 5,
    quoteCount: index % 3,
    impressionCount: 1_000 + index * 13,
    conversationId: null,
    inReplyToUserId: null,
    referencedTypes: [],
    hashtags: ['perch'],
    urls: [],
    media: [],
  }));
}

/** The fake X web with accounts that posted recently (and none to sign in with yet). */
export async function startFakeXWebWithAccounts(): Promise<FakeXWebServer> {
  const fake = await startFakeXWebServer();
  const busy = fake.addUser({ username: 'OrbitNews', name: 'Orbit News', followersCount: 48_210 });
  fake.addSourceTweets(busy.id, recentPosts(1, 60, 3));
  const other = fake.addUser({ username: 'LaunchLog', name: 'Launch Log', followersCount: 9_120 });
  fake.addSourceTweets(other.id, recentPosts(2, 30, 3));
  return fake;
}

/** The server's environment that collects from `fake` with the x-web source. */
export function xWebEnv(fake: FakeXWebServer): Record<string, string> {
  return {
    TWEET_SOURCE: 'x-web',
    X_WEB_BASE_URL: fake.baseUrl,
    X_WEB_API_BASE_URL: fake.baseUrl,
    MONITOR_INTERVAL_SECONDS: '5',
    X_WEB_OPERATIONS_RECHECK_SECONDS: '1',
  };
}

/**
 * Helpers of the notification journeys: the server's loopback Telegram fake, run in this process
 * so the test can read what "Telegram" received, and a look into the demo source's future to pick
 * a handle that is about to post.
 *
 * Both come from the server workspace on purpose: the fake is the one the server's own tests use
 * (docs/spec-notes.md, Fakes), and the demo source is a pure function of handle and time ("two
 * processes agree on every tweet"), so the tweets it predicts here are the ones the server will
 * find.
 */
/* eslint-disable import-x/no-restricted-paths -- test harness: runs the server's fakes in-process */
import { createDemoSource, demoUserId } from '../../server/src/sources/demo-source';
export {
  startFakeTelegramServer,
  type FakeTelegramServer,
} from '../../server/test/fakes/fake-telegram-server';
export {
  startFakeDiscordServer,
  type FakeDiscordServer,
} from '../../server/test/fakes/fake-discord-server';
/* eslint-enable import-x/no-restricted-paths */

export interface BusyHandle {
  handle: string;
  /** Epoch ms of its tweets inside the window, oldest first. */
  tweetTimes: number[];
  /** The longest stretch without a tweet inside the window, ms. */
  longestGapMs: number;
}

/**
 * Of `candidates`, the handle whose tweets between `fromMs` and `toMs` leave the shortest
 * silence: the demo source is asked with its clock set to `toMs`, so it tells the future.
 */
export async function pickBusyDemoHandle(
  candidates: readonly string[],
  fromMs: number,
  toMs: number,
): Promise<BusyHandle> {
  const source = createDemoSource({ pageDelayMs: 0, now: () => toMs });
  let best: BusyHandle | null = null;
  for (const handle of candidates) {
    const tweetTimes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await source.timeline({
        xUserId: demoUserId(handle),
        startTime: new Date(fromMs).toISOString(),
        endTime: new Date(toMs).toISOString(),
        cursor,
        maxResults: 100,
      });
      tweetTimes.push(...page.tweets.map((tweet) => Date.parse(tweet.createdAt)));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    tweetTimes.sort((a, b) => a - b);
    const edges = [fromMs, ...tweetTimes, toMs];
    let longestGapMs = 0;
    for (let i = 1; i < edges.length; i++) {
      longestGapMs = Math.max(longestGapMs, edges[i]! - edges[i - 1]!);
    }
    if (!best || longestGapMs < best.longestGapMs) best = { handle, tweetTimes, longestGapMs };
  }
  if (!best) throw new Error('no candidate handles');
  return best;
}

/** Sources for the collector's tests: the real demo source with its calls counted, and its walks. */
import type { TweetSource } from '../domain/tweet-source.js';
import type { HandleRow } from '../modules/handles/handles.repository.js';

/**
 * A source that counts its calls and runs `hooks.beforeTimeline` after each timeline page is
 * read, before it is returned (tests inject trouble there).
 */
export function instrumented(inner: TweetSource) {
  const calls = { lookupUser: 0, timeline: 0, tweetsByIds: 0 };
  const hooks: { beforeTimeline?: (call: number) => Promise<void> } = {};
  const source: TweetSource = {
    name: inner.name,
    account: inner.account,
    lookupUser: (username, signal) => {
      calls.lookupUser += 1;
      return inner.lookupUser(username, signal);
    },
    timeline: async (query, signal) => {
      calls.timeline += 1;
      const page = await inner.timeline(query, signal);
      await hooks.beforeTimeline?.(calls.timeline);
      return page;
    },
    tweetsByIds: (ids, signal) => {
      calls.tweetsByIds += 1;
      return inner.tweetsByIds(ids, signal);
    },
    usersByIds: (ids, signal) => inner.usersByIds(ids, signal),
    rateBudget: () => inner.rateBudget(),
    rateStatus: () => inner.rateStatus(),
    timelineDepth: inner.timelineDepth,
  };
  return { source, calls, hooks };
}

/** The pages a single walk of the handle's backfill window takes from the source. */
export async function sourceWindowPages(
  source: TweetSource,
  handle: HandleRow,
): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await source.timeline({
      xUserId: handle.x_user_id ?? '',
      startTime: handle.backfill_target_start ?? undefined,
      cursor,
      maxResults: 100,
    });
    pages.push(page.tweets.map((tweet) => tweet.id));
    if (!page.nextCursor) return pages;
    cursor = page.nextCursor;
  }
}

/** Every tweet id the source has in the handle's backfill window, sorted. */
export async function sourceWindowIds(source: TweetSource, handle: HandleRow): Promise<string[]> {
  return (await sourceWindowPages(source, handle)).flat().sort();
}

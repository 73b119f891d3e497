/**
 * Posts as a source returns them (SourceTweet), with a plain default for every field so a test
 * spells out only what it is about. Free of server modules, so the benchmarks build their posts
 * with them too.
 */
import type { SourceTweet } from '../src/domain/tweet-source.js';

/** The counts of a post nobody engaged with (and whose views X did not tell). */
export const NO_ENGAGEMENT = {
  likeCount: 0,
  retweetCount: 0,
  replyCount: 0,
  quoteCount: 0,
  impressionCount: null,
} as const satisfies Partial<SourceTweet>;

let tweetSeq = 1_800_000_000_000_000_000n;

/** A tweet id above every one handed out before it (19 digits, like X's). */
export function nextTweetId(): string {
  tweetSeq += 1n;
  return String(tweetSeq);
}

/**
 * A tweet as a source returns it: posted now, a little engagement on each count, no
 * references, entities or media; a fresh id unless `overrides` gives one.
 */
export function makeTweet(overrides: Partial<SourceTweet> = {}): SourceTweet {
  const id = nextTweetId();
  return {
    id,
    text: `Tweet number ${id}`,
    createdAt: new Date().toISOString(),
    lang: 'en',
    likeCount: 1,
    retweetCount: 2,
    replyCount: 3,
    quoteCount: 4,
    impressionCount: 100,
    conversationId: null,
    inReplyToUserId: null,
    referencedTypes: [],
    hashtags: [],
    urls: [],
    media: [],
    ...overrides,
  };
}

/**
 * An original post that starts its own conversation and has no engagement yet, as the
 * analytics tests lay out a timeline: text `post <id>`; override the counts that matter.
 */
export function originalPost(
  overrides: Partial<SourceTweet> & { id: string; createdAt: string },
): SourceTweet {
  return makeTweet({
    text: `post ${overrides.id}`,
    conversationId: overrides.id,
    ...NO_ENGAGEMENT,
    ...overrides,
  });
}

/**
 * `count` posts tagged #perch, as the collector tests lay out timelines: post `i` has `i` likes
 * and no other engagement, and its id, text and time from `fields(i)`.
 */
export function perchPosts(
  count: number,
  fields: (i: number) => Pick<SourceTweet, 'id' | 'text' | 'createdAt'>,
): SourceTweet[] {
  return Array.from({ length: count }, (_, i) =>
    makeTweet({
      likeCount: i,
      retweetCount: 0,
      replyCount: 0,
      quoteCount: 0,
      hashtags: ['perch'],
      ...fields(i),
    }),
  );
}

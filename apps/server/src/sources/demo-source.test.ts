/**
 * Behaviour only the demo source has: a realistic mix, engagement that grows with age, tweets
 * that arrive as time passes, reserved failure handles, and fast page-by-page generation.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import {
  createDemoSource,
  DEMO_CHALLENGE,
  DEMO_RESERVED_HANDLES,
  demoUserId,
} from './demo-source.js';
import { createTweetSource } from './index.js';
import {
  SourceError,
  type SourceTweet,
  type TimelineQuery,
  type TweetSource,
} from '../domain/tweet-source.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

async function all(source: TweetSource, query: TimelineQuery): Promise<SourceTweet[]> {
  const tweets: SourceTweet[] = [];
  let cursor: string | undefined;
  do {
    const page = await source.timeline({ ...query, cursor });
    tweets.push(...page.tweets);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return tweets;
}

describe('demo source', () => {
  it('paces a 15-day backfill at 10-20 s with the default 400 ms page delay, for any account', async () => {
    const source = createDemoSource({ pageDelayMs: 0 });
    for (const handle of ['quiet_anna', 'typical_news', 'prolific_dev']) {
      const { xUserId } = await source.lookupUser(handle);
      const startTime = new Date(Date.now() - 15 * 86_400_000).toISOString();
      let pages = 0;
      let cursor: string | undefined;
      do {
        const page = await source.timeline({ xUserId, startTime, cursor, maxResults: 100 });
        pages += 1;
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      const seconds = (pages * 400) / 1000;
      expect(seconds, handle).toBeGreaterThanOrEqual(10);
      expect(seconds, handle).toBeLessThanOrEqual(20);
    }
  });

  it('has a realistic mix over 15 days of a typical handle', async () => {
    const source = createDemoSource({ pageDelayMs: 0, now: () => NOW });
    const { xUserId } = await source.lookupUser('typical_tess');
    const tweets = await all(source, { xUserId, startTime: iso(NOW - 15 * DAY) });
    expect(tweets.length).toBeGreaterThan(15 * 4);
    expect(tweets.length).toBeLessThan(15 * 25);
    const has = (type: string) => tweets.filter((t) => t.referencedTypes.includes(type as never));
    expect(has('replied_to').length).toBeGreaterThan(0);
    expect(has('quoted').length).toBeGreaterThan(0);
    const retweets = has('retweeted');
    expect(retweets.length).toBeGreaterThan(0);
    expect(retweets.every((t) => /^RT @[a-z_]+: /.test(t.text))).toBe(true);
    // Threads: self-replies whose conversation is an earlier tweet of the same account.
    const ids = new Set(tweets.map((t) => t.id));
    const threads = tweets.filter(
      (t) => t.inReplyToUserId === xUserId && t.conversationId && ids.has(t.conversationId),
    );
    expect(threads.length).toBeGreaterThan(0);
    const media = tweets.flatMap((t) => t.media);
    for (const type of ['photo', 'video', 'animated_gif']) {
      expect(media.some((m) => m.type === type)).toBe(true);
    }
    expect(
      media.filter((m) => m.type === 'photo').every((m) => m.url?.startsWith('https://')),
    ).toBe(true);
    expect(media.filter((m) => m.type !== 'photo').every((m) => m.previewUrl !== null)).toBe(true);
    expect(tweets.some((t) => t.urls.length > 0)).toBe(true);
    expect(tweets.some((t) => t.hashtags.length > 0)).toBe(true);
    expect(new Set(tweets.map((t) => t.lang)).size).toBeGreaterThanOrEqual(3);
    // Heavy tail: the best tweet does far better than the median one.
    const likes = tweets.map((t) => t.likeCount).sort((a, b) => a - b);
    expect(likes.at(-1)!).toBeGreaterThan(5 * Math.max(1, likes[Math.floor(likes.length / 2)]!));
  });

  it('is quieter at night than during the day (local time of the persona)', async () => {
    const source = createDemoSource({ pageDelayMs: 0, now: () => NOW });
    const { xUserId } = await source.lookupUser('prolific_nina');
    const tweets = await all(source, { xUserId, startTime: iso(NOW - 30 * DAY) });
    const perHour = Array.from({ length: 24 }, () => 0);
    for (const t of tweets) perHour[new Date(t.createdAt).getUTCHours()]! += 1;
    const sorted = [...perHour].sort((a, b) => a - b);
    expect(sorted[23]!).toBeGreaterThan(4 * sorted[0]!);
  });

  it('keeps raising a tweet’s metrics as it ages, saturating after about two days', async () => {
    let clock = NOW;
    const source = createDemoSource({ pageDelayMs: 0, now: () => clock });
    const { xUserId } = await source.lookupUser('prolific_mia');
    const recent = (await source.timeline({ xUserId, startTime: iso(NOW - 12 * HOUR) })).tweets;
    const tweet = recent.find((t) => !t.referencedTypes.includes('retweeted'))!;
    const reads: SourceTweet[] = [];
    for (const later of [0, 6 * HOUR, 24 * HOUR, 72 * HOUR, 96 * HOUR]) {
      clock = NOW + later;
      reads.push((await source.tweetsByIds([tweet.id]))[0]!);
    }
    for (let i = 1; i < reads.length; i++) {
      expect(reads[i]!.likeCount).toBeGreaterThanOrEqual(reads[i - 1]!.likeCount);
      expect(reads[i]!.impressionCount!).toBeGreaterThanOrEqual(reads[i - 1]!.impressionCount!);
    }
    expect(reads[2]!.impressionCount!).toBeGreaterThan(reads[0]!.impressionCount!);
    // After 3 days it has (almost) stopped growing.
    expect(reads[4]!.impressionCount! - reads[3]!.impressionCount!).toBeLessThanOrEqual(
      Math.ceil(reads[4]!.impressionCount! * 0.01),
    );
    expect(reads.every((r) => r.text === tweet.text && r.createdAt === tweet.createdAt)).toBe(true);
  });

  it('lets new tweets arrive as time passes, never showing the future', async () => {
    let clock = NOW;
    const source = createDemoSource({ pageDelayMs: 0, now: () => clock });
    const { xUserId } = await source.lookupUser('prolific_max');
    const first = await source.timeline({ xUserId, maxResults: 5 });
    expect(Date.parse(first.tweets[0]!.createdAt)).toBeLessThanOrEqual(NOW);
    const newest = first.tweets[0]!.id;
    expect(await all(source, { xUserId, sinceId: newest })).toEqual([]);
    clock = NOW + 6 * HOUR;
    const arrived = await all(source, { xUserId, sinceId: newest });
    expect(arrived.length).toBeGreaterThan(0);
    for (const t of arrived) {
      expect(Date.parse(t.createdAt)).toBeGreaterThan(NOW - 1);
      expect(Date.parse(t.createdAt)).toBeLessThanOrEqual(clock);
    }
    // An explicit end in the future still stops at now.
    const future = await source.timeline({ xUserId, endTime: iso(NOW + 30 * DAY), maxResults: 5 });
    expect(Date.parse(future.tweets[0]!.createdAt)).toBeLessThanOrEqual(clock);
  });

  it('grows followers slowly over time', async () => {
    let clock = NOW;
    const source = createDemoSource({ pageDelayMs: 0, now: () => clock });
    const before = await source.lookupUser('typical_fred');
    clock = NOW + 30 * DAY;
    const after = await source.lookupUser('typical_fred');
    expect(after.followersCount).toBeGreaterThan(before.followersCount);
    expect(after.followersCount).toBeLessThan(before.followersCount * 1.2);
    expect(after.tweetCount).toBeGreaterThan(before.tweetCount);
  });

  it('simulates failures with reserved handles', async () => {
    const source = createDemoSource({ pageDelayMs: 0, now: () => NOW });
    const kind = (promise: Promise<unknown>) =>
      promise.then(
        () => 'ok',
        (e: unknown) => (e instanceof SourceError ? e.kind : 'other'),
      );
    const limited = await source.lookupUser(DEMO_RESERVED_HANDLES.rateLimited);
    const error = await source.timeline({ xUserId: limited.xUserId }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).retryAfterMs).toBe(60_000);
    const down = await source.lookupUser(DEMO_RESERVED_HANDLES.unavailable);
    expect(await kind(source.timeline({ xUserId: down.xUserId }))).toBe('unavailable');
    expect(await kind(source.lookupUser('not a handle'))).toBe('not_found');
    expect(await kind(source.timeline({ xUserId: 'abc' }))).toBe('not_found');
  });

  it('waits pageDelayMs per call and honours an abort', async () => {
    const source = createDemoSource({ pageDelayMs: 150, now: () => NOW });
    const started = Date.now();
    await source.lookupUser('typical_tess');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await expect(source.lookupUser('typical_tess', controller.signal)).rejects.toThrow(/abort/i);
    expect(source.rateBudget()).toEqual({ limit: null, remaining: null, resetAt: null });
  });

  it('streams >= 50,000 tweets of a bench handle over 30 days, page by page, quickly', async () => {
    const source = createDemoSource({ pageDelayMs: 0, now: () => NOW });
    const { xUserId } = await source.lookupUser('bench_0001');
    const started = performance.now();
    let count = 0;
    let pages = 0;
    let previous: bigint | null = null;
    let cursor: string | undefined;
    do {
      const page = await source.timeline({ xUserId, startTime: iso(NOW - 30 * DAY), cursor });
      expect(page.tweets.length).toBeLessThanOrEqual(100);
      for (const tweet of page.tweets) {
        const id = BigInt(tweet.id);
        if (previous !== null) expect(id < previous).toBe(true);
        previous = id;
      }
      count += page.tweets.length;
      pages += 1;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `demo: ${count} tweets in ${seconds.toFixed(2)} s (${Math.round(count / seconds)}/s)`,
    );
    expect(count).toBeGreaterThanOrEqual(50_000);
    expect(pages).toBe(Math.ceil(count / 100));
    // Generous for slow CI machines; locally this is ~1 s including the per-tweet checks above.
    expect(seconds).toBeLessThan(6);
  });
});

describe('demo profiles by id', () => {
  it('answers the ids it issues, long handles too, with no lookup by name first', async () => {
    const source = createDemoSource({ pageDelayMs: 0, now: () => NOW });
    // A fresh instance: the ids decode back to their handles.
    const ids = ['typical_tess', 'a_fifteen_chars'].map(demoUserId);
    expect(ids[1]!.length).toBeGreaterThan(19);
    const { profiles, missing } = await source.usersByIds([...ids, '0', 'x']);
    expect(profiles.map((p) => p.username)).toEqual(['typical_tess', 'a_fifteen_chars']);
    expect(profiles[0]).toEqual(await source.lookupUser('typical_tess'));
    expect(missing).toEqual([
      { xUserId: '0', kind: 'not_found' },
      { xUserId: 'x', kind: 'not_found' },
    ]);
  });

  it('has no budgets and no depth limit', () => {
    const source = createDemoSource({ pageDelayMs: 0 });
    expect(source.rateStatus()).toEqual({ endpoints: [], appDay: null });
    expect(source.timelineDepth).toBeNull();
  });
});

describe('demo collector account', () => {
  it('has no account session unless a challenge code is configured', () => {
    expect(createDemoSource({ pageDelayMs: 0 }).account).toBeUndefined();
    expect(createTweetSource(loadConfig({})).account).toBeUndefined();
    expect(createTweetSource(loadConfig({ DEMO_CHALLENGE_CODE: '424242' })).account).toBeDefined();
  });

  it('is challenged at start until exactly the configured code is accepted', async () => {
    const account = createDemoSource({ pageDelayMs: 0, challengeCode: '424242' }).account;
    if (!account) throw new Error('no account');
    expect(await account.challengeOnStart()).toEqual(DEMO_CHALLENGE);
    expect(DEMO_CHALLENGE.type).toBe('email_code');
    expect(await account.verify('424243')).toBe(false);
    expect(await account.verify('')).toBe(false);
    expect(await account.challengeOnStart()).toEqual(DEMO_CHALLENGE);
    expect(await account.verify(' 424242 ')).toBe(true);
    // A verified session stays verified, and a wrong code is still refused.
    expect(await account.challengeOnStart()).toBeNull();
    expect(await account.verify('000000')).toBe(false);
    expect(await account.challengeOnStart()).toBeNull();
  });
});

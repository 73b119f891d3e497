/**
 * One contract for every TweetSource: the demo source (no delay, fixed clock), the x-api
 * source against the loopback fake X server and the x-web source against the loopback fake of
 * X's web API (with a collector account signed in by cookies, on a real database), both seeded
 * with the demo's tweets. All must agree on lookups, failures, paging, sinceId, maxResults and
 * tweetsByIds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeXServer,
  type FakeXServer,
  type FakeXUserInput,
} from '../../test/fakes/fake-x-server.js';
import { createDemoSource, demoUserId } from './demo-source.js';
import { type SourceTweet, type TimelineQuery, type TweetSource } from '../domain/tweet-source.js';
import { createXApiSource } from './x-api-source.js';
import { createTestDb, DIALECTS } from '../../test/helpers.js';
import type { Dialect } from '../db/index.js';
import { startFakeXWebServer } from '../../test/fakes/fake-x-web-server.js';
import { createTokenCipher } from '../lib/token-cipher.js';
import { addAccount } from '../modules/x-web/x-web-accounts.service.js';
import { createXWebSource } from './x-web/x-web-source.js';
import { sourceFailure as failure } from '../../test/assertions.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const ACTIVE = 'prolific_ctr';
/** The x-api fake holds this much of the active handle's history. */
const SEEDED_FROM = NOW - 10 * DAY;

interface Harness {
  source: TweetSource;
  /** A second, independent instance over the same data (determinism). */
  another(): TweetSource;
  /** The tweets the source is known to hold, when there is such a ground truth. */
  seeded: SourceTweet[] | null;
  /** How deep its timelines reach (TweetSource.timelineDepth). */
  timelineDepth: number | null;
  /** The rate budgets it tells once every operation was used (empty: none). */
  endpoints: string[];
  /** The budget rateBudget() tells: the timeline's. */
  timelineEndpoint: string;
  /** User ids of the reserved accounts, and one of no account. */
  ids: { protected: string; suspended: string; unknown: string };
  close(): Promise<void>;
}

/** Every page of a query, following cursors. */
async function collect(source: TweetSource, query: TimelineQuery): Promise<SourceTweet[][]> {
  const pages: SourceTweet[][] = [];
  let cursor: string | undefined;
  do {
    const page = await source.timeline({ ...query, cursor });
    pages.push(page.tweets);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && pages.length < 1_000);
  return pages;
}

/** What a fake X server needs to be seeded with the demo's accounts. */
interface SeedableFake {
  addUser(input: FakeXUserInput): { id: string };
  addSourceTweets(userId: string, tweets: SourceTweet[]): void;
}

/**
 * Seeds a fake with the active handle (profile and history as the demo source tells them, each
 * tweet passed through `shape`) and with a protected and a suspended account.
 */
async function seedFake(fake: SeedableFake, shape: (tweet: SourceTweet) => SourceTweet) {
  const demo = createDemoSource({ pageDelayMs: 0, now: () => NOW });
  const profile = await demo.lookupUser(ACTIVE);
  const user = fake.addUser({
    username: ACTIVE,
    id: profile.xUserId,
    name: profile.name,
    followersCount: profile.followersCount,
    followingCount: profile.followingCount,
    tweetCount: profile.tweetCount,
  });
  const seeded = (
    await collect(demo, { xUserId: user.id, startTime: iso(SEEDED_FROM), endTime: iso(NOW) })
  )
    .flat()
    .map(shape);
  fake.addSourceTweets(user.id, seeded);
  const locked = fake.addUser({ username: 'protected_demo', protected: true });
  const banned = fake.addUser({ username: 'suspended_demo', suspended: true });
  return { seeded, ids: { protected: locked.id, suspended: banned.id, unknown: '4242424242' } };
}

/** A harness of a source of X (3,200 posts deep) over a fake seeded by seedFake. */
const xHarness = (
  make: () => TweetSource,
  seed: Pick<Harness, 'seeded' | 'ids'>,
  rest: Pick<Harness, 'endpoints' | 'timelineEndpoint' | 'close'>,
): Harness => ({ source: make(), another: make, timelineDepth: 3_200, ...seed, ...rest });

const demoHarness = async (): Promise<Harness> => {
  const make = () => createDemoSource({ pageDelayMs: 0, now: () => NOW });
  return {
    source: make(),
    another: make,
    seeded: null,
    timelineDepth: null,
    endpoints: [],
    timelineEndpoint: 'users/tweets',
    ids: {
      protected: demoUserId('protected_demo'),
      suspended: demoUserId('suspended_demo'),
      unknown: demoUserId('nobody_demo'),
    },
    close: async () => {},
  };
};

const xApiHarness = async (): Promise<Harness> => {
  const fake: FakeXServer = await startFakeXServer();
  const seed = await seedFake(fake, (tweet) => tweet);
  const make = () =>
    createXApiSource({
      baseUrl: fake.baseUrl,
      bearerToken: fake.bearerToken,
      now: () => Date.now(),
      retryBaseMs: 1,
    });
  return xHarness(make, seed, {
    endpoints: ['tweets', 'users', 'users/by/username', 'users/tweets'],
    timelineEndpoint: 'users/tweets',
    close: () => fake.close(),
  });
};

/** X's web API gives created_at to the second: the seeded posts are, too. */
const toSecond = (tweet: SourceTweet): SourceTweet => ({
  ...tweet,
  createdAt: new Date(Math.floor(Date.parse(tweet.createdAt) / 1000) * 1000).toISOString(),
});

/** The x-web source keeps its pool and operations in the database: run it on each dialect. */
const xWebHarness = (dialect: Dialect) => async (): Promise<Harness> => {
  const fake = await startFakeXWebServer();
  const db = await createTestDb(dialect, { TWEET_SOURCE: 'x-web' });
  const seed = await seedFake(fake, toSecond);
  // The suite reads more pages than one 15-minute window of one account allows.
  fake.setLimit('UserTweetsAndReplies', 1_000);
  fake.addAccount({ username: 'collector_one', password: 'pw', email: 'one@example.com' });
  const session = fake.issueSession('collector_one');
  const cipher = createTokenCipher({ dataDir: db.config.DATA_DIR });
  await addAccount(
    { config: db.config, db: db.db, cipher },
    {
      method: 'cookies',
      username: 'collector_one',
      auth_token: session.authToken,
      ct0: session.ct0,
    },
  );
  const make = () =>
    createXWebSource({
      db: db.db,
      cipher,
      baseUrl: fake.baseUrl,
      apiBaseUrl: fake.baseUrl,
      retryBaseMs: 1,
    });
  return xHarness(make, seed, {
    endpoints: [
      'TweetResultsByRestIds',
      'UserByScreenName',
      'UserTweetsAndReplies',
      'UsersByRestIds',
    ],
    timelineEndpoint: 'UserTweetsAndReplies',
    close: async () => {
      await fake.close();
      await db.dispose();
    },
  });
};

describe.each([
  { name: 'demo', setup: demoHarness },
  { name: 'x-api', setup: xApiHarness },
  ...DIALECTS.map((dialect) => ({ name: `x-web (${dialect})`, setup: xWebHarness(dialect) })),
])('TweetSource contract: $name', ({ setup }) => {
  let h: Harness;
  let xUserId: string;
  const start = NOW - 4 * DAY;
  const end = NOW - 1 * DAY;

  beforeAll(async () => {
    h = await setup();
    xUserId = (await h.source.lookupUser(ACTIVE)).xUserId;
  });
  afterAll(() => h?.close());

  it('looks up a profile', async () => {
    const profile = await h.source.lookupUser(ACTIVE.toUpperCase());
    expect(profile.xUserId).toMatch(/^[0-9]+$/);
    expect(profile.username.toLowerCase()).toBe(ACTIVE);
    expect(profile.name.length).toBeGreaterThan(0);
    expect(profile.followersCount).toBeGreaterThan(0);
    expect(profile.followingCount).toBeGreaterThan(0);
    expect(profile.tweetCount).toBeGreaterThan(0);
    expect(profile.protected).toBe(false);
  });

  it('reports an unknown account as not_found', async () => {
    expect((await failure(h.source.lookupUser('nobody_demo'))).kind).toBe('not_found');
  });

  it('reports a protected account: protected profile, unreadable timeline', async () => {
    const profile = await h.source.lookupUser('protected_demo');
    expect(profile.protected).toBe(true);
    const error = await failure(h.source.timeline({ xUserId: profile.xUserId }));
    expect(error.kind).toBe('protected');
  });

  it('reports a suspended account as suspended', async () => {
    expect((await failure(h.source.lookupUser('suspended_demo'))).kind).toBe('suspended');
  });

  it('pages a window: every tweet in [start, end) once, newest first, across pages', async () => {
    const pages = await collect(h.source, {
      xUserId,
      startTime: iso(start),
      endTime: iso(end),
      maxResults: 37,
    });
    expect(pages.length).toBeGreaterThan(2);
    const tweets = pages.flat();
    // A page may be short (X does not promise full pages either), never longer.
    for (const page of pages) expect(page.length).toBeLessThanOrEqual(37);
    expect(pages.some((page) => page.length === 37)).toBe(true);
    for (const tweet of tweets) {
      const at = Date.parse(tweet.createdAt);
      expect(at).toBeGreaterThanOrEqual(start);
      expect(at).toBeLessThan(end);
    }
    for (let i = 1; i < tweets.length; i++) {
      expect(BigInt(tweets[i]!.id) < BigInt(tweets[i - 1]!.id)).toBe(true);
      expect(tweets[i]!.createdAt <= tweets[i - 1]!.createdAt).toBe(true);
    }
    // The same set as a wider read cut down to the window (and, for x-api, as what was seeded).
    const wide = (
      await collect(h.source, { xUserId, startTime: iso(start - DAY), endTime: iso(end + DAY) })
    )
      .flat()
      .filter((t) => Date.parse(t.createdAt) >= start && Date.parse(t.createdAt) < end);
    expect(tweets.map((t) => t.id)).toEqual(wide.map((t) => t.id));
    if (h.seeded) {
      const truth = h.seeded.filter(
        (t) => Date.parse(t.createdAt) >= start && Date.parse(t.createdAt) < end,
      );
      expect(tweets).toEqual(truth);
    }
  });

  it('returns only tweets newer than sinceId', async () => {
    const window = (await collect(h.source, { xUserId, startTime: iso(start), endTime: iso(end) }))
      .flat()
      .reverse();
    const pivot = window[Math.floor(window.length / 2)]!;
    const newer = (
      await collect(h.source, { xUserId, sinceId: pivot.id, endTime: iso(end), maxResults: 50 })
    ).flat();
    expect(newer.length).toBeGreaterThan(0);
    expect(newer.every((t) => BigInt(t.id) > BigInt(pivot.id))).toBe(true);
    expect(newer.map((t) => t.id).reverse()).toEqual(
      window.filter((t) => BigInt(t.id) > BigInt(pivot.id)).map((t) => t.id),
    );
  });

  it('respects maxResults', async () => {
    const page = await h.source.timeline({ xUserId, endTime: iso(end), maxResults: 5 });
    expect(page.tweets).toHaveLength(5);
    expect(page.nextCursor).not.toBeNull();
    const next = await h.source.timeline({
      xUserId,
      endTime: iso(end),
      maxResults: 5,
      cursor: page.nextCursor!,
    });
    expect(next.tweets).toHaveLength(5);
    expect(BigInt(next.tweets[0]!.id) < BigInt(page.tweets[4]!.id)).toBe(true);
  });

  it('returns the asked tweets by id and leaves unknown ids out', async () => {
    const page = await h.source.timeline({ xUserId, endTime: iso(end), maxResults: 10 });
    const wanted = [page.tweets[0]!.id, page.tweets[3]!.id, page.tweets[9]!.id];
    const found = await h.source.tweetsByIds([...wanted, '1234567']);
    expect(found.map((t) => t.id).sort()).toEqual([...wanted].sort());
    const byId = new Map(found.map((t) => [t.id, t]));
    expect(byId.get(wanted[1]!)?.text).toBe(page.tweets[3]!.text);
    expect(await h.source.tweetsByIds([])).toEqual([]);
  });

  it('looks profiles up by id: those it has, and why the others are missing', async () => {
    const result = await h.source.usersByIds([
      xUserId,
      h.ids.protected,
      h.ids.suspended,
      h.ids.unknown,
    ]);
    expect(result.profiles.map((p) => [p.username.toLowerCase(), p.protected])).toEqual([
      [ACTIVE, false],
      ['protected_demo', true],
    ]);
    expect(result.profiles[0]).toEqual(await h.source.lookupUser(ACTIVE));
    expect(result.missing).toEqual([
      { xUserId: h.ids.suspended, kind: 'suspended' },
      { xUserId: h.ids.unknown, kind: 'not_found' },
    ]);
    expect(await h.source.usersByIds([xUserId, xUserId])).toMatchObject({
      profiles: [{ xUserId }],
      missing: [],
    });
    expect(await h.source.usersByIds([])).toEqual({ profiles: [], missing: [] });
  });

  it('takes at most 100 ids per lookup by id (the caller splits longer lists)', async () => {
    const ids = Array.from({ length: 101 }, (_, n) => String(7_000_000 + n));
    await expect(h.source.usersByIds(ids)).rejects.toBeInstanceOf(RangeError);
  });

  it('tells its rate status, in agreement with rateBudget', () => {
    const status = h.source.rateStatus();
    const names = status.endpoints.map((e) => e.endpoint);
    expect(new Set(names).size).toBe(names.length);
    for (const budget of status.endpoints) {
      expect(budget.endpoint.length).toBeGreaterThan(0);
      if (budget.resetAt !== null) expect(Date.parse(budget.resetAt)).not.toBeNaN();
      if (budget.limit !== null && budget.remaining !== null) {
        expect(budget.remaining).toBeLessThanOrEqual(budget.limit);
      }
    }
    const timeline = status.endpoints.find((e) => e.endpoint === h.timelineEndpoint);
    const { limit, remaining, resetAt } = timeline ?? {
      limit: null,
      remaining: null,
      resetAt: null,
    };
    expect(h.source.rateBudget()).toEqual({ limit, remaining, resetAt });
    // Every test above used the timeline, lookups by name, by id and of tweets.
    expect(names.sort()).toEqual(h.endpoints);
    expect(status.appDay).toBeNull();
  });

  it('says how deep its timelines reach', () => {
    expect(h.source.timelineDepth).toBe(h.timelineDepth);
  });

  it('is deterministic: two instances give the same page', async () => {
    const query = { xUserId, startTime: iso(start), endTime: iso(end), maxResults: 20 };
    const a = await h.source.timeline(query);
    const b = await h.another().timeline(query);
    expect(b).toEqual(a);
    expect(await h.another().lookupUser(ACTIVE)).toEqual(await h.source.lookupUser(ACTIVE));
  });
});

/**
 * Polls after a pause, end to end: the real collector and x-api source against the loopback
 * fake X, on SQLite and PostgreSQL. More new posts than one poll reads arrive while a collected
 * handle is paused; the polls after the pause walk back through all of them, each page once,
 * before the handle's newest post id moves.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { handleListResponseSchema, type Handle } from '@perch/shared';
import { CREDITS_DEPLETED } from '../src/collector/context.js';
import type { HandleStatusEvent, TweetNewEvent } from '../src/domain/collector-events.js';
import { createXApiSource } from '../src/sources/index.js';
import type { SourceTweet } from '../src/domain/tweet-source.js';
import { dataOf } from './assertions.js';
import { startFakeXServer, type FakeXRequest, type FakeXServer } from './fakes/fake-x-server.js';
import {
  DIALECTS,
  buildTestApp,
  handleNamed,
  storedTweetIds,
  waitFor,
  type TestApp,
  type TestClient,
} from './helpers.js';
import { registeredClients } from './seed.js';
import { perchPosts } from './source-tweets.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Ids of the posts kept before the pause; those of the pause come after them. */
const BEFORE_PAUSE_IDS = 1_800_000_000_000_000_000n;
const PAUSE_IDS = 1_800_000_000_001_000_000n;

/** `count` posts with ids counting up from `firstId`, one every `everyMs` up to `newestAt`. */
function posts(count: number, firstId: bigint, newestAt: number, everyMs: number): SourceTweet[] {
  return perchPosts(count, (i) => ({
    id: String(firstId + BigInt(count - 1 - i)),
    text: `post ${count - i} #perch`,
    createdAt: new Date(newestAt - i * everyMs).toISOString(),
  }));
}

const sortedIds = (tweets: SourceTweet[]) => tweets.map((tweet) => tweet.id).sort();

describe.each(DIALECTS)('polls catch up after a pause (fake X, %s)', (dialect) => {
  let fake: FakeXServer;
  let t: TestApp;
  /** A super admin (stops and starts collection) and a user who follows the handle. */
  let root: TestClient;
  let alice: TestClient;
  let statuses: HandleStatusEvent[];
  let fresh: TweetNewEvent[];

  afterEach(async () => {
    await t?.close();
    await fake?.close();
  });

  async function setUp() {
    fake = await startFakeXServer();
    const source = createXApiSource({
      baseUrl: fake.baseUrl,
      bearerToken: fake.bearerToken,
      retryBaseMs: 10,
    });
    t = await buildTestApp(dialect, {}, { source, tickMs: 50, collector: { probeEveryMs: 200 } });
    ({ root, alice } = await registeredClients(t, { root: 'superadmin', alice: 'user' }));
    statuses = [];
    fresh = [];
    t.collector.events.on('handle.status', (event) => statuses.push(event));
    t.collector.events.on('tweet.new', (event) => fresh.push(event));
  }

  /**
   * A new app and a followed handle with a week collected (30 posts, one an hour up to 3 days
   * ago), then stopped by an admin; while it is paused, `count` posts appear on X, one every
   * `everyMs` up to a minute ago.
   */
  async function pausedWhilePosting(username: string, count: number, everyMs: number) {
    await setUp();
    const kept = posts(30, BEFORE_PAUSE_IDS, Date.now() - 3 * DAY, HOUR);
    const user = fake.addUser({ username });
    fake.addSourceTweets(user.id, kept);
    const added = await alice.post('/api/v1/handles', { username, backfill_days: 7 });
    expect(added.statusCode, added.body).toBe(201);
    const collected = await waitFor(
      () => handleNamed(t.db, username),
      (row) => row.backfill_status === 'completed',
    );
    expect(collected.newest_tweet_id).toBe(kept[0]?.id);
    const stop = await root.post('/api/v1/admin/processes/stop', { handle_id: collected.id });
    expect(stop.statusCode, stop.body).toBe(200);
    await t.collector.idle();
    const arrived = posts(count, PAUSE_IDS, Date.now() - MINUTE, everyMs);
    fake.addSourceTweets(user.id, arrived);
    return { kept, handle: collected, arrived };
  }

  /** Waits until the newest post of `username` is the newest of `arrived`, and all is stored. */
  async function caughtUp(username: string, arrived: SourceTweet[]) {
    const row = await waitFor(
      () => handleNamed(t.db, username),
      (row) => row.newest_tweet_id === arrived[0]?.id,
    );
    await t.collector.idle();
    return row;
  }

  /** Starts the handle again; resolves with the timeline requests of the polls that follow. */
  async function resume(handleId: number) {
    const from = fake.requests.length;
    const start = await root.post('/api/v1/admin/processes/start', { handle_id: handleId });
    expect(start.statusCode, start.body).toBe(200);
    return () => fake.requests.slice(from).filter((request) => request.endpoint === 'users/tweets');
  }

  async function listed(client: TestClient, username: string): Promise<Handle | undefined> {
    const list = dataOf(await client.get('/api/v1/handles'), handleListResponseSchema);
    return list.handles.find((entry) => entry.handle === username);
  }

  /** The timeline requests, one line each, for a failure to show what was read and how. */
  function pageReads(requests: FakeXRequest[]): string {
    return requests
      .map(
        (request) =>
          `${request.status} at ${request.at}: since ${request.query.since_id ?? '-'}, ` +
          `cursor ${request.query.pagination_token ?? 'first page'}`,
      )
      .join('\n');
  }

  /** Every page was asked for once: no cursor twice, and only the first page without one. */
  function expectEveryPageOnce(requests: FakeXRequest[], sinceId: string | null | undefined) {
    const tokens = requests.map((request) => request.query.pagination_token ?? 'first page');
    expect(new Set(tokens).size).toBe(tokens.length);
    // The walk kept asking past the post kept before the pause: that id never moved meanwhile.
    expect(requests.every((request) => request.query.since_id === sinceId)).toBe(true);
  }

  it('stores every one of 2,500 posts that appeared during a pause, once, before moving the newest id', async () => {
    const { kept, handle, arrived } = await pausedWhilePosting('BusyBee', 2_500, 10_000);
    const timelineRequests = await resume(handle.id);
    const done = await caughtUp('BusyBee', arrived);

    expect(await storedTweetIds(t.db, handle.id)).toEqual(sortedIds([...kept, ...arrived]));
    expect(done).toMatchObject({
      total_tweets_collected: 2_530,
      last_error: null,
      catch_up_cursor: null,
      catch_up_newest_id: null,
      catch_up_found: 0,
    });
    // Three polls of at most 10 pages: 25 pages of 100, each read once.
    const requests = timelineRequests();
    expect(requests, pageReads(requests)).toHaveLength(25);
    expect(requests.every((request) => request.status === 200)).toBe(true);
    expectEveryPageOnce(requests, kept[0]?.id);
    expect(fake.billing().posts).toBe(2_530);

    // The handle said so while it caught up, and the events went out as usual.
    const texts = statuses.filter((event) => event.handleId === handle.id).map((e) => e.error);
    expect(texts).toEqual(
      expect.arrayContaining([
        'Catching up: 1,000 new posts so far',
        'Catching up: 2,000 new posts so far',
      ]),
    );
    expect(texts.at(-1)).toBeNull();
    expect(fresh.map((event) => event.tweet.id).sort()).toEqual(sortedIds(arrived));
    expect(await listed(alice, 'BusyBee')).toMatchObject({
      last_error: null,
      total_tweets_collected: 2_530,
    });
  });

  it('a gap deeper than X reaches stores all X still returns and says older posts could not be read', async () => {
    const { kept, handle, arrived } = await pausedWhilePosting('Firehose', 4_000, 5_000);
    // X's timeline reaches the latest 3,200 posts only.
    const reachable = arrived.slice(0, 3_200);
    const oldestReachable = reachable.at(-1)?.createdAt ?? '';
    const timelineRequests = await resume(handle.id);
    const done = await caughtUp('Firehose', arrived);

    expect(await storedTweetIds(t.db, handle.id)).toEqual(sortedIds([...kept, ...reachable]));
    const note = `X returns only the latest 3,200 posts: posts of the pause before ${oldestReachable.slice(0, 10)} ${oldestReachable.slice(11, 16)} UTC could not be read`;
    expect(done).toMatchObject({
      total_tweets_collected: 3_230,
      last_error: note,
      catch_up_cursor: null,
    });
    expect(done.backfill_status).toBe('completed');
    expectEveryPageOnce(timelineRequests(), kept[0]?.id);
    expect(await listed(alice, 'Firehose')).toMatchObject({ last_error: note });

    // The note stays while later polls find nothing new: it tells of the data, not of a poll.
    await t.collector.pollNow(handle.id);
    const later = await handleNamed(t.db, 'Firehose');
    expect(later.last_poll_at).not.toBe(done.last_poll_at);
    expect(later.last_error).toBe(note);
    expect(later.total_tweets_collected).toBe(3_230);
  });

  it('credits running out mid-way: the handle waits, then goes on where it stopped', async () => {
    const { kept, handle, arrived } = await pausedWhilePosting('Spender', 2_500, 10_000);
    // Enough for the first poll's 1,000 posts: the second poll's first page gets a 402.
    fake.setCredits(1_000 * 0.005);
    const timelineRequests = await resume(handle.id);
    const waiting = await waitFor(
      () => handleNamed(t.db, 'Spender'),
      (row) => row.last_error === CREDITS_DEPLETED,
    );
    expect(waiting).toMatchObject({ newest_tweet_id: kept[0]?.id, catch_up_found: 1_000 });
    expect(waiting.catch_up_cursor).not.toBeNull();
    expect(await listed(alice, 'Spender')).toMatchObject({ last_error: CREDITS_DEPLETED });

    fake.setCredits(null);
    await caughtUp('Spender', arrived);

    expect(await storedTweetIds(t.db, handle.id)).toEqual(sortedIds([...kept, ...arrived]));
    const requests = timelineRequests();
    const refused = requests.filter((request) => request.status === 402);
    const served = requests.filter((request) => request.status === 200);
    expect(refused).toHaveLength(1);
    expect(served).toHaveLength(25);
    expectEveryPageOnce(served, kept[0]?.id);
    // The walk went on with the very page X had refused.
    const refusedAt = requests.findIndex((request) => request.status === 402);
    const next = requests.slice(refusedAt + 1).find((request) => request.status === 200);
    expect(next?.query.pagination_token).toBe(requests[refusedAt]?.query.pagination_token);
    expect((await handleNamed(t.db, 'Spender')).last_error).toBeNull();
  });

  it('a place X no longer takes: the walk starts again at the newest post, nothing lost', async () => {
    const { kept, handle, arrived } = await pausedWhilePosting('Stale', 1_500, 10_000);
    // A catch-up stopped long ago, at a cursor X now refuses (400).
    await t.db.db
      .updateTable('handles')
      .set({ catch_up_cursor: 'bm90LWEtY3Vyc29y', catch_up_newest_id: arrived[600]?.id ?? null })
      .where('id', '=', handle.id)
      .execute();

    await resume(handle.id);
    const refused = await waitFor(
      () => handleNamed(t.db, 'Stale'),
      (row) => row.catch_up_cursor === null,
    );
    expect(refused.last_error).toMatch(/^X API rejected the request \(400\)/);
    expect(refused.newest_tweet_id).toBe(kept[0]?.id);
    // The retry waits 30 s; a manual poll does not. It is asked for once the refused poll is
    // over: asked for while that poll still runs, it would be that poll (pollNow).
    await t.collector.idle();
    await t.collector.pollNow(handle.id);
    await caughtUp('Stale', arrived);
    expect(await storedTweetIds(t.db, handle.id)).toEqual(sortedIds([...kept, ...arrived]));
    expect((await handleNamed(t.db, 'Stale')).last_error).toBeNull();
  });
});

/**
 * The x-web source against the strict fake of X in late 2026, on a real database and over real
 * HTTP: transaction ids (and their renewal), query ids and features that X rotates in the middle
 * of a run (picked up from x.com's client with no restart), HTML refusals that pause the pool
 * instead of taking accounts out, the error codes X sends, timelines with pinned, promoted and
 * filler pages, replies, and one request per account and operation in flight.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  X_WEB_MESSAGES,
  xWebAccountsResponseSchema,
  xWebOperationsResponseSchema,
} from '@perch/shared';
import { type SourceTweet } from '../src/domain/tweet-source.js';
import { createXWebSource } from '../src/sources/x-web/x-web-source.js';
import { createTokenCipher } from '../src/lib/token-cipher.js';
import { dataOf, sourceFailure as failure } from './assertions.js';
import {
  startFakeXWebServer,
  type FakeXWebServer,
  type TimelineQuirks,
} from './fakes/fake-x-web-server.js';
import { addXWebAccountByCookies } from './x-web-accounts.js';
import { makeTweet } from './factories.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';

const ACCOUNTS = '/api/v1/admin/x-web-accounts';
const OPERATIONS = '/api/v1/admin/x-web-operations';
const NASA = '11348282';
const MINUTE = 60_000;
const RECHECK_MS = 3_000;

/** `count` posts of `userId`, one a minute back from an hour ago, newest first. */
function posts(count: number, extra: (n: number) => Partial<SourceTweet> = () => ({})) {
  const top = Math.floor(Date.now() / 1000) * 1000 - 60 * MINUTE;
  return Array.from({ length: count }, (_, n) =>
    makeTweet({
      id: String(1_900_000_000_000_000_000n + BigInt(count - n) * 1_000n),
      text: `Post ${count - n}`,
      createdAt: new Date(top - n * MINUTE).toISOString(),
      likeCount: n,
      retweetCount: 0,
      replyCount: 0,
      quoteCount: 0,
      ...extra(n),
    }),
  );
}

describe.each(DIALECTS)('x-web against X as it is in late 2026 (%s)', (dialect) => {
  let fake: FakeXWebServer;
  let t: TestApp;
  let root: TestClient;
  let clock = Date.now();
  const now = () => clock;
  const makeSource = () =>
    createXWebSource({
      db: t.db.db,
      cipher: createTokenCipher({ dataDir: t.db.config.DATA_DIR }),
      baseUrl: fake.baseUrl,
      apiBaseUrl: fake.baseUrl,
      retryBaseMs: 1,
      busyWaitMs: 200,
      now,
      // A forced read of x.com's client at most every 3 s, and waits that pass on the clock:
      // a read refused as too soon is waited out and made.
      operationsRecheckMs: RECHECK_MS,
      sleep: async (ms: number) => {
        clock += Math.ceil(ms);
      },
    });
  let source: ReturnType<typeof makeSource>;

  async function start(options: Parameters<typeof startFakeXWebServer>[0] = {}) {
    fake = await startFakeXWebServer(options);
    t = await buildTestApp(dialect, {
      TWEET_SOURCE: 'x-web',
      X_WEB_BASE_URL: fake.baseUrl,
      X_WEB_API_BASE_URL: fake.baseUrl,
    });
    root = new TestClient(t.app);
    await root.register(t.db, 'root', 'superadmin');
    source = makeSource();
    fake.addUser({ username: 'nasa', id: NASA, followersCount: 90_000_000, tweetCount: 71_000 });
  }

  beforeEach(() => {
    clock = Date.now();
  });
  afterEach(async () => {
    await t?.close();
    await fake?.close();
  });

  const addByCookies = (username: string) => addXWebAccountByCookies(fake, root, username);

  /** An account added by its password, that X lets sign in. */
  async function addSigner() {
    const signer = { username: 'signer', password: 'hunter2!', email: 's@example.com' };
    fake.addAccount(signer);
    await root.post(ACCOUNTS, { method: 'credentials', ...signer });
  }
  const accounts = async () => dataOf(await root.get(ACCOUNTS), xWebAccountsResponseSchema);
  const graphql = () => fake.requests.filter((r) => r.path.startsWith('/i/api/graphql/'));

  it('signs every request with a transaction id, and makes a new one when X refuses it', async () => {
    await start();
    await addByCookies('reader');
    const profile = await source.lookupUser('nasa');
    // The 2026 user shape: counts outside `legacy`.
    expect(profile).toMatchObject({ followersCount: 90_000_000, tweetCount: 71_000 });
    expect(graphql().length).toBeGreaterThan(0);
    expect(graphql().every((r) => r.valid && r.transactionId)).toBe(true);

    fake.rotateVerificationKey();
    expect((await source.lookupUser('nasa')).xUserId).toBe(NASA);
    const lookups = graphql().map((r) => r.status);
    // One refusal (404, empty), then the same request with a new id.
    expect(lookups).toEqual([200, 404, 200]);
    expect((await accounts()).accounts[0]).toMatchObject({ status: 'ACTIVE' });
  });

  it('signs the sign-in requests too', async () => {
    await start();
    await addSigner();
    await source.lookupUser('nasa');
    const signIn = fake.requests.filter((r) => r.path.startsWith('/1.1/'));
    expect(signIn.length).toBeGreaterThan(3);
    expect(signIn.every((r) => r.valid)).toBe(true);
    expect((await accounts()).accounts[0]).toMatchObject({ status: 'ACTIVE' });
  });

  it('picks up query ids X rotates in the middle of a run from its client, with no restart', async () => {
    await start();
    await addByCookies('reader');
    fake.addSourceTweets(NASA, posts(30));
    const first = await source.timeline({ xUserId: NASA, maxResults: 10 });
    expect(first.tweets).toHaveLength(10);

    // The client was read when the source started, moments ago: the forced read waits its gap.
    fake.rotateQueryIds();
    const rotated = fake.operations();
    const next = await source.timeline({
      xUserId: NASA,
      maxResults: 10,
      cursor: first.nextCursor!,
    });
    expect(next.tweets.map((t) => t.text)).toEqual(
      posts(30)
        .slice(10, 20)
        .map((t) => t.text),
    );
    const list = dataOf(await root.get(OPERATIONS), xWebOperationsResponseSchema);
    const timeline = list.operations.find((o) => o.name === 'UserTweetsAndReplies')!;
    expect(timeline).toMatchObject({
      source: 'bundle',
      query_id: rotated.UserTweetsAndReplies.queryId,
    });
    expect(timeline.seen_at).not.toBeNull();
    expect(list.checked_at).toBe(new Date(clock).toISOString());
    // Other operations heal from the same read, without a refusal of their own.
    const before = graphql().length;
    await source.lookupUser('nasa');
    expect(
      graphql()
        .slice(before)
        .map((r) => r.status),
    ).toEqual([200]);
  });

  it('ends the request with the time until x.com’s client may be read again, when that is long', async () => {
    await start();
    await addByCookies('reader');
    const patient = createXWebSource({
      db: t.db.db,
      cipher: createTokenCipher({ dataDir: t.db.config.DATA_DIR }),
      baseUrl: fake.baseUrl,
      apiBaseUrl: fake.baseUrl,
      retryBaseMs: 1,
      now,
      operationsRecheckMs: MINUTE,
    });
    expect((await patient.lookupUser('nasa')).xUserId).toBe(NASA);
    await patient.operations.refresh({ force: true }).catch(() => null);
    clock += 10_000;
    fake.rotateQueryIds();
    const refused = await failure(patient.lookupUser('nasa'));
    expect(refused.kind).toBe('unavailable');
    expect(refused.message).toMatch(/UserByScreenName answered 404, and .*checked moments ago/);
    expect(refused.retryAfterMs).toBe(MINUTE - 10_000);
  });

  it('starts from x.com’s client when the shipped query ids are already stale', async () => {
    await start({ freshQueryIds: true });
    await addByCookies('reader');
    expect((await source.lookupUser('nasa')).xUserId).toBe(NASA);
    const statuses = graphql().map((r) => r.status);
    expect(statuses.at(-1)).toBe(200);
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(2);
  });

  it('adds a feature X says cannot be null and goes on, with no restart', async () => {
    await start();
    await addByCookies('reader');
    await source.lookupUser('nasa');
    clock += 61_000;
    fake.requireFeature('rweb_brand_new_flag_enabled', true);
    expect((await source.lookupUser('nasa')).xUserId).toBe(NASA);
    expect(graphql().map((r) => r.status)).toEqual([200, 400, 200]);
    const list = dataOf(await root.get(OPERATIONS), xWebOperationsResponseSchema);
    const lookup = list.operations.find((o) => o.name === 'UserByScreenName')!;
    expect(lookup.features.rweb_brand_new_flag_enabled).toBe(true);
  });

  /** X answers every request with a Cloudflare page: a lookup finds the pool paused for 1 minute. */
  async function pausedByCloudflare() {
    fake.refuseWithHtml('always');
    const refused = await failure(source.lookupUser('nasa'));
    expect(refused.kind).toBe('rate_limited');
    expect(refused.message).toContain(X_WEB_MESSAGES.poolPaused);
    expect(refused.retryAfterMs).toBe(MINUTE);
  }

  it('pauses the pool on a Cloudflare page, 1 minute doubling, and takes no account out', async () => {
    await start();
    await addByCookies('one');
    await addByCookies('two');
    await pausedByCloudflare();
    let state = await accounts();
    expect(state.accounts.map((a) => a.status)).toEqual(['ACTIVE', 'ACTIVE']);
    expect(state.pool.paused_until).toBe(new Date(clock + MINUTE).toISOString());
    expect(state.pool.pause_reason).toMatch(/Cloudflare \(HTTP 403: Just a moment/);

    // While paused nothing is sent.
    const sent = fake.requests.length;
    expect((await failure(source.lookupUser('nasa'))).kind).toBe('rate_limited');
    expect(fake.requests.length).toBe(sent);

    clock += MINUTE + 1_000;
    const second = await failure(source.lookupUser('nasa'));
    expect(second.retryAfterMs).toBe(2 * MINUTE);
    fake.refuseWithHtml(0);
    clock += 2 * MINUTE + 1_000;
    expect((await source.lookupUser('nasa')).xUserId).toBe(NASA);
    state = await accounts();
    expect(state.pool).toEqual({ paused_until: null, pause_reason: null, paused_since: null });
    expect(state.accounts.map((a) => a.status)).toEqual(['ACTIVE', 'ACTIVE']);
  });

  it('leaves an account to sign in later when X answers its sign-in with a Cloudflare page', async () => {
    await start();
    await addSigner();
    await pausedByCloudflare();
    let state = await accounts();
    expect(state.accounts[0]).toMatchObject({ status: 'NEEDS_LOGIN' });
    expect(state.accounts[0]!.last_error).toMatch(/Cloudflare \(HTTP 403/);
    expect(state.pool.pause_reason).toMatch(/Cloudflare \(HTTP 403/);

    fake.refuseWithHtml(0);
    clock += MINUTE + 1_000;
    expect((await source.lookupUser('nasa')).xUserId).toBe(NASA);
    state = await accounts();
    expect(state.accounts[0]).toMatchObject({ status: 'ACTIVE' });
    expect(state.pool.paused_until).toBeNull();
  });

  it('notes on the account an internal error (131) that outlasts the retries', async () => {
    await start();
    await addByCookies('reader');
    for (let n = 0; n < 4; n++) {
      fake.failNext('UserByScreenName', { code: 131, message: 'Internal error' });
    }
    const failed = await failure(source.lookupUser('nasa'));
    expect(failed.kind).toBe('unavailable');
    expect(failed.message).toContain('(131) Internal error');
    const [reader] = (await accounts()).accounts;
    expect(reader).toMatchObject({ status: 'ACTIVE' });
    expect(reader!.last_error).toBe('UserByScreenName: (131) Internal error');
  });

  it('handles the codes X sends as the references do, each with its reason', async () => {
    await start();
    await addByCookies('one');
    await addByCookies('two');
    // 131 (internal error): tried again.
    fake.failNext('UserByScreenName', { code: 131, message: 'Internal error' });
    expect((await source.lookupUser('nasa')).xUserId).toBe(NASA);
    // 200 with errors and no data: an error in X's words, never 'not found'.
    fake.failNext('UserByScreenName', { code: 37, message: 'Not authorized' });
    const refused = await failure(source.lookupUser('nasa'));
    expect(refused.kind).toBe('unavailable');
    expect(refused.message).toContain('(37) Not authorized');
    // 88 while the window has requests left: that account rests 24 h, the other serves.
    fake.failNext('UsersByRestIds', { code: 88, message: 'Rate limit exceeded' });
    expect((await source.usersByIds([NASA])).profiles).toHaveLength(1);
    const limited = (await accounts()).accounts.find((a) => a.last_error?.includes('(88)'))!;
    expect(limited.last_error).toMatch(/X limits this account on UsersByRestIds/);
    expect(Date.parse(limited.resting_until!)).toBeGreaterThan(clock + 23 * 60 * MINUTE);
    // 326 / 64 / 89 / 353 take the account out with X's words.
    for (const [code, status] of [
      [326, 'LOCKED'],
      [89, 'EXPIRED'],
    ] as const) {
      fake.failNext('UserByScreenName', { code, message: `Code ${code} from X`, status: 403 });
      await source.lookupUser('nasa').catch(() => null);
      const out = (await accounts()).accounts.find((a) => a.status === status)!;
      expect(out.status_reason).toContain(`(${code}) Code ${code} from X`);
    }
  });

  /** One account reading 50 posts of NASA through timeline pages with `quirks`; the posts. */
  async function fiftyPostsWithQuirks(quirks: TimelineQuirks) {
    await start();
    await addByCookies('reader');
    fake.setLimit('UserTweetsAndReplies', 500);
    const seeded = posts(50);
    fake.addSourceTweets(NASA, seeded);
    fake.setTimelineQuirks(quirks);
    return seeded;
  }

  it('reads through pages of only pinned and promoted entries, and stops on a repeated cursor', async () => {
    const seeded = await fiftyPostsWithQuirks({ fillerPages: 2 });
    const all: SourceTweet[] = [];
    let cursor: string | undefined;
    do {
      const page = await source.timeline({ xUserId: NASA, cursor });
      all.push(...page.tweets);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(all.map((p) => p.id)).toEqual(seeded.map((p) => p.id));

    fake.setTimelineQuirks({ repeatCursor: true });
    const before = graphql().length;
    const looped = await source.timeline({ xUserId: NASA });
    expect(looped.nextCursor).toBeNull();
    expect(graphql().length - before).toBeLessThanOrEqual(3);
  });

  it('ends a backfill whose cursors lead back and forth between two pages (A, B, A)', async () => {
    const seeded = await fiftyPostsWithQuirks({ alternateCursors: true });
    const all: SourceTweet[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const page = await source.timeline({ xUserId: NASA, cursor });
      all.push(...page.tweets);
      cursor = page.nextCursor ?? undefined;
      calls += 1;
    } while (cursor && calls < 10);
    expect(cursor).toBeUndefined();
    expect(all.map((p) => p.id)).toEqual(seeded.map((p) => p.id));
    // Two pages of posts, then the three that give nothing older.
    expect(graphql().filter((r) => r.operation === 'UserTweetsAndReplies').length).toBe(5);
  });

  it('collects replies, as x-api does, and the pinned post in its place', async () => {
    await start();
    await addByCookies('reader');
    const seeded = posts(12, (n) =>
      n % 4 === 1
        ? {
            referencedTypes: ['replied_to'],
            inReplyToUserId: '42',
            conversationId: String(1_800_000_000_000_000_000n + BigInt(n)),
          }
        : {},
    );
    fake.addSourceTweets(NASA, seeded);
    const page = await source.timeline({ xUserId: NASA });
    expect(page.tweets.map((p) => p.id)).toEqual(seeded.map((p) => p.id));
    expect(page.tweets.filter((p) => p.referencedTypes.includes('replied_to'))).toHaveLength(3);
    expect(page.nextCursor).toBeNull();
  });

  it('keeps one request per account and operation in flight', async () => {
    await start();
    await addByCookies('only');
    const lease = await source.pool.acquire('UserByScreenName');
    const busy = await failure(source.pool.acquire('UserByScreenName'));
    expect(busy.kind).toBe('rate_limited');
    expect(busy.message).toMatch(/in flight/);
    // Another operation of the same account is free.
    const other = await source.pool.acquire('UsersByRestIds');
    await other.release();
    await lease.release();
    const again = await source.pool.acquire('UserByScreenName');
    await again.release();
  });
});

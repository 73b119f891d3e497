import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS, createTestDb, insertAlertRules, type TestDb } from '../../test/helpers.js';
import { makeTweet } from '../../test/notify-helpers.js';
import { insertHandle } from '../modules/handles/handles.repository.js';
import { upsertPage, upsertTweets } from '../modules/tweets/tweets.repository.js';
import { insertUser } from '../modules/users/users.repository.js';
import type { SourceTweet } from '../domain/tweet-source.js';
import { createPageAlerts, evaluatePendingPosts } from './evaluation.js';
import { claimMarks, markForAlerts } from './marks.repository.js';

const NOW = new Date();
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const delivery = () => ({ channels: ['telegram'] as const, webhooks: false });
const counts = { retweetCount: 0, replyCount: 0, quoteCount: 0 };

describe.each(DIALECTS)('alert rules evaluated as a page is stored (%s)', (dialect) => {
  let db: TestDb;
  afterEach(async () => {
    await db?.dispose();
  });

  /** A handle with a words rule ("launch") and, when asked, a 3x-the-month-median rule. */
  async function world(options: { medianRule?: boolean } = {}) {
    db = await createTestDb(dialect);
    const user = await insertUser(db.db, {
      username: 'watcher',
      email: 'watcher@example.com',
      passwordHash: 'x',
      isAdmin: false,
      isSuperAdmin: false,
      createdAt: at(-HOUR).toISOString(),
    });
    const handle = await insertHandle(db.db, {
      username: 'watched',
      backfillDays: 7,
      now: NOW.toISOString(),
    });
    const kinds: object[] = [{ type: 'words', include: ['launch'], exclude: [] }];
    if (options.medianRule)
      kinds.push({ type: 'engagement_multiple', multiple: 3, period: 'month' });
    await insertAlertRules(db, {
      userId: user.id,
      handleId: handle.id,
      kinds,
      madeAt: at(-HOUR).toISOString(),
    });
    return { handleId: handle.id, alerts: createPageAlerts(db, delivery) };
  }

  /** Stores a page as monitoring does (collector/poll.ts): under the page's claim. */
  async function store(
    handleId: number,
    alerts: ReturnType<typeof createPageAlerts>,
    page: SourceTweet[],
    now = NOW,
  ) {
    const claim = alerts.claim(now);
    const stored = await upsertPage(db.db, handleId, page, now.toISOString(), {
      markForFanout: true,
      alertClaim: claim,
    });
    return { claim, stored };
  }

  const firingTweets = async () =>
    (await db.db.selectFrom('alert_firings').select('tweet_id').orderBy('id').execute()).map(
      (row) => row.tweet_id,
    );
  const marks = () =>
    db.db.selectFrom('alert_marks').select(['id', 'claim']).orderBy('id').execute();

  it('a page that fires is recorded at once, and its mark deleted with the firings', async () => {
    const { handleId, alerts } = await world();
    const launch = makeTweet({ text: 'launch today' });
    const { claim, stored } = await store(handleId, alerts, [
      makeTweet({ text: 'a quiet one' }),
      launch,
    ]);
    expect(stored.claimed).toMatchObject({
      rules: [expect.objectContaining({ handle_id: handleId })],
    });
    expect(stored.claimed!.posts.map((post) => post.tweet_id).sort()).toEqual(
      [...stored.inserted].sort(),
    );
    // Claimed by this store: the delivery worker's pass leaves it alone.
    expect(await evaluatePendingPosts(db, { now: NOW, ...delivery() })).toMatchObject({
      evaluated: 0,
    });
    const fired = await alerts.evaluate(claim, stored.claimed!, NOW);
    expect(fired).toMatchObject({ fired: 1, queued: 0 });
    expect(fired.firings).toHaveLength(1);
    expect(await firingTweets()).toEqual([launch.id]);
    expect(await marks()).toEqual([]);
    expect(await evaluatePendingPosts(db, { now: at(1_000), ...delivery() })).toMatchObject({
      evaluated: 0,
      fired: 0,
    });
  });

  it("a quiet page's mark is deleted: on PostgreSQL by the next store or claim", async () => {
    const { handleId, alerts } = await world();
    const first = await store(handleId, alerts, [makeTweet({ text: 'nothing here' })]);
    const [firstMark] = first.stored.claimed!.marks;
    expect(await alerts.evaluate(first.claim, first.stored.claimed!, NOW)).toEqual({
      fired: 0,
      queued: 0,
      firings: [],
    });
    if (dialect === 'sqlite') {
      expect(await marks()).toEqual([]);
      return;
    }
    // Still claimed, so nobody evaluates it again, until this process's next statement of marks.
    expect(await marks()).toEqual([{ id: firstMark, claim: first.claim.token }]);
    const second = await store(handleId, alerts, [makeTweet({ text: 'still nothing' })], at(1_000));
    expect(second.claim.finished).toEqual([{ token: first.claim.token, marks: [firstMark] }]);
    const [secondMark] = second.stored.claimed!.marks;
    expect(await marks()).toEqual([{ id: secondMark, claim: second.claim.token }]);
    await alerts.evaluate(second.claim, second.stored.claimed!, at(1_000));
    // The delivery worker's pass of the same process takes it: not evaluated again, deleted.
    expect(await evaluatePendingPosts(db, { now: at(2_000), ...delivery() })).toMatchObject({
      evaluated: 0,
    });
    expect(await marks()).toEqual([]);
    expect(await firingTweets()).toEqual([]);
  });

  it.runIf(dialect === 'postgres')(
    'a store that failed gives back the marks it was to delete',
    async () => {
      const { handleId, alerts } = await world();
      const quiet = await store(handleId, alerts, [makeTweet({ text: 'quiet' })]);
      await alerts.evaluate(quiet.claim, quiet.stored.claimed!, NOW);
      const failed = alerts.claim(at(1_000));
      expect(failed.finished).toHaveLength(1);
      alerts.release(failed);
      expect(alerts.claim(at(2_000)).finished).toEqual(failed.finished);
    },
  );

  it('a page whose process ended before evaluating it is evaluated, once, when its claim runs out', async () => {
    const { handleId, alerts } = await world();
    const launch = makeTweet({ text: 'launch window' });
    await store(handleId, alerts, [launch]);
    // The storing process ended here. Within the claim, nobody takes the mark.
    expect(await evaluatePendingPosts(db, { now: at(1_000), ...delivery() })).toMatchObject({
      evaluated: 0,
    });
    expect(await evaluatePendingPosts(db, { now: at(61_000), ...delivery() })).toMatchObject({
      evaluated: 1,
      fired: 1,
    });
    expect(await firingTweets()).toEqual([launch.id]);
    expect(await marks()).toEqual([]);
  });

  it('a page of a handle without rules is not marked, and nothing is claimed', async () => {
    await world();
    const other = await insertHandle(db.db, {
      username: 'unwatched',
      backfillDays: 7,
      now: NOW.toISOString(),
    });
    const alerts = createPageAlerts(db, delivery);
    const { stored } = await store(other.id, alerts, [makeTweet({ text: 'launch' })]);
    expect(stored.inserted.size).toBe(1);
    expect(stored.claimed).toBeUndefined();
    expect(await marks()).toEqual([]);
  });

  it("compares with the month's median as it stands after the page's write, refreshed posts included", async () => {
    const { handleId, alerts } = await world({ medianRule: true });
    // Engagements 10 to 80 over the month and one older post, stored as a backfill does.
    const history = [10, 20, 30, 40, 50, 60, 70, 80, 900].map((likes, i) =>
      makeTweet({
        text: `older ${i}`,
        createdAt: at(i < 8 ? -(3 * i + 2) * DAY + HOUR : -40 * DAY).toISOString(),
        likeCount: likes,
        ...counts,
      }),
    );
    await upsertTweets(db.db, handleId, history, NOW.toISOString());
    // The page: two new posts, and the post of 80 with new numbers (now 8).
    const below = makeTweet({ text: 'below', likeCount: 164, ...counts });
    const above = makeTweet({ text: 'above', likeCount: 165, ...counts });
    const page = [below, above, { ...history[7]!, likeCount: 8 }];
    const { claim, stored } = await store(handleId, alerts, page);
    if (dialect === 'postgres') {
      // Month: 8, 10 .. 70, 164, 165, so the median is (40 + 50) / 2 = 45; week: 10 and 20
      // (posted 2 and 5 days ago), 164, 165: (20 + 164) / 2 = 92.
      expect(stored.claimed!.medians!.get(handleId)).toEqual({ week: 92, month: 45 });
      // The same as a claim made after the write reads.
      await markForAlerts(db.db, handleId, [below.id], NOW.toISOString());
      const after = await claimMarks(db.db, {
        token: 't',
        now: NOW,
        until: at(60_000),
        limit: 10,
      });
      expect(after.medians!.get(handleId)).toEqual({ week: 92, month: 45 });
      await db.db.deleteFrom('alert_marks').where('claim', '=', 't').execute();
    } else {
      // SQLite's evaluation reads them itself, in process.
      expect(stored.claimed!.medians).toBeUndefined();
    }
    // 3 x 45 = 135: both new posts fire the median rule.
    const fired = await alerts.evaluate(claim, stored.claimed!, NOW);
    expect(fired.fired).toBe(2);
    expect((await firingTweets()).sort()).toEqual([below.id, above.id].sort());
    const numbers = await db.db.selectFrom('alert_firings').select('numbers').execute();
    expect(numbers.map((row) => JSON.parse(row.numbers).median)).toEqual([45, 45]);
  });

  it.runIf(dialect === 'postgres')(
    'a handle with a median rule and no posts in the month has no medians',
    async () => {
      const { handleId, alerts } = await world({ medianRule: true });
      const old = makeTweet({ text: 'old', createdAt: at(-40 * DAY).toISOString() });
      const { stored } = await store(handleId, alerts, [old]);
      expect(stored.claimed!.medians!.get(handleId)).toEqual({ week: null, month: null });
    },
  );
});

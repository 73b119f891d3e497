import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { tweetRow } from '../../test/factories.js';
import {
  DIALECTS,
  createTestDb,
  markedPosts,
  testMigrator,
  type TestDb,
} from '../../test/helpers.js';
import { makeTweet } from '../../test/notify-helpers.js';
import { insertHandle } from '../modules/handles/handles.repository.js';
import {
  recordMetrics,
  upsertTweets,
  type DueMetricsRow,
} from '../modules/tweets/tweets.repository.js';
import { insertUser } from '../modules/users/users.repository.js';
import { createAlertPass, evaluatePendingPosts, type FiredAlert } from './evaluation.js';
import { PREPARED_MARK } from '../db/index.js';
import { claimMarks, markForAlerts } from './marks.repository.js';

const NOW = new Date();
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

describe.each(DIALECTS)('alert marks (%s)', (dialect) => {
  let db: TestDb;
  afterEach(async () => {
    await db?.dispose();
  });

  async function world() {
    db = await createTestDb(dialect);
    const user = await insertUser(db.db, {
      username: 'watcher',
      email: 'watcher@example.com',
      passwordHash: 'x',
      isAdmin: false,
      isSuperAdmin: false,
      createdAt: at(-3_600_000).toISOString(),
    });
    const handle = async (username: string) =>
      (await insertHandle(db.db, { username, backfillDays: 7, now: NOW.toISOString() })).id;
    const watched = await handle('watched');
    const unwatched = await handle('unwatched');
    await db.db
      .insertInto('alert_rules')
      .values({
        user_id: user.id,
        handle_id: watched,
        name: 'Launches',
        enabled: true,
        kind: JSON.stringify({ type: 'words', include: ['launch'], exclude: [] }),
        memory: null,
        created_at: at(-3_600_000).toISOString(),
        updated_at: at(-3_600_000).toISOString(),
      })
      .execute();
    return { watched, unwatched };
  }

  const markedTexts = async () => {
    const posts = await markedPosts(db);
    if (posts.length === 0) return [];
    const rows = await db.db
      .selectFrom('tweets')
      .select('text')
      .where('id', 'in', posts)
      .orderBy('id')
      .execute();
    return rows.map((row) => row.text);
  };

  const evaluate = (now: Date) =>
    evaluatePendingPosts(db, { now, channels: ['telegram'], webhooks: false });

  it('marks posts found by monitoring and new numbers, of handles with an enabled rule only', async () => {
    const { watched, unwatched } = await world();
    const found = makeTweet({ text: 'launch found by monitoring' });
    const backfilled = makeTweet({
      text: 'launch from the backfill',
      createdAt: at(-2 * 3_600_000).toISOString(),
    });
    await upsertTweets(db.db, watched, [found], NOW.toISOString(), { markForFanout: true });
    await upsertTweets(db.db, watched, [backfilled], NOW.toISOString());
    await upsertTweets(
      db.db,
      unwatched,
      [makeTweet({ text: 'launch elsewhere' })],
      NOW.toISOString(),
      {
        markForFanout: true,
      },
    );
    expect(await markedTexts()).toEqual(['launch found by monitoring']);

    expect(await evaluate(NOW)).toMatchObject({ evaluated: 1, fired: 1 });
    expect(await markedTexts()).toEqual([]);

    // New numbers of the backfilled post: its rules look at it (it is older than the rule,
    // so the words rule does not fire on it).
    const stored = await db.db
      .selectFrom('tweets')
      .select(['id', 'handle_id', 'tweet_id', 'created_at', 'like_count', 'retweet_count'])
      .select(['reply_count', 'quote_count', 'impression_count'])
      .where('tweet_id', '=', backfilled.id)
      .executeTakeFirstOrThrow();
    await recordMetrics(
      db.db,
      watched,
      [stored as DueMetricsRow],
      [{ ...backfilled, likeCount: backfilled.likeCount + 5 }],
      at(60_000).toISOString(),
    );
    expect(await markedTexts()).toEqual(['launch from the backfill']);
    expect(await evaluate(at(60_000))).toMatchObject({ evaluated: 1, fired: 0 });
    // Nothing fired: on PostgreSQL the next claim deletes the mark, which stays claimed until
    // then (nobody evaluates it again).
    expect(await evaluate(at(61_000))).toMatchObject({ evaluated: 0 });
    expect(await markedTexts()).toEqual([]);
  });

  // Claims are PostgreSQL's, where several workers evaluate; on SQLite one transaction reads,
  // evaluates and deletes the marks, and a crash rolls it back.
  it.runIf(dialect === 'postgres')(
    'evaluates again, once, the marks of a worker that never finished',
    async () => {
      const { watched } = await world();
      await upsertTweets(db.db, watched, [makeTweet({ text: 'launch day' })], NOW.toISOString(), {
        markForFanout: true,
      });
      // A worker claimed the mark and crashed.
      await db.db
        .updateTable('alert_marks')
        .set({ claim: 'crashed', claimed_until: at(60_000).toISOString() })
        .execute();
      expect(await evaluate(at(1_000))).toMatchObject({ evaluated: 0, fired: 0 });
      expect(await markedTexts()).toEqual(['launch day']);
      // Its claim ran out: another worker takes it.
      expect(await evaluate(at(61_000))).toMatchObject({ evaluated: 1, fired: 1 });
      expect(await markedTexts()).toEqual([]);
      const firings = await db.db.selectFrom('alert_firings').select('id').execute();
      expect(firings).toHaveLength(1);
    },
  );

  it.runIf(dialect === 'postgres')(
    'keeps a mark made again while it was claimed, so the new numbers are looked at',
    async () => {
      const { watched } = await world();
      const post = makeTweet({ text: 'launch window' });
      await upsertTweets(db.db, watched, [post], NOW.toISOString(), { markForFanout: true });
      await db.db
        .updateTable('alert_marks')
        .set({ claim: 'slow worker', claimed_until: at(60_000).toISOString() })
        .execute();
      await markForAlerts(db.db, watched, [post.id], at(1_000).toISOString());
      // The slow worker finishes: it deletes its claim's marks only.
      await db.db.deleteFrom('alert_marks').where('claim', '=', 'slow worker').execute();
      expect(await markedTexts()).toEqual(['launch window']);
      expect(await evaluate(at(2_000))).toMatchObject({ evaluated: 1, fired: 1 });
    },
  );

  it("compares with the handle's median engagement of the month (mean of the middle two)", async () => {
    const { watched } = await world();
    await db.db
      .insertInto('alert_rules')
      .values({
        user_id: (await db.db.selectFrom('users').select('id').executeTakeFirstOrThrow()).id,
        handle_id: watched,
        name: 'Three times the median',
        enabled: true,
        kind: JSON.stringify({ type: 'engagement_multiple', multiple: 3, period: 'month' }),
        memory: null,
        created_at: at(-3_600_000).toISOString(),
        updated_at: at(-3_600_000).toISOString(),
      })
      .execute();
    // Engagements 10 to 80 over the month, stored as a backfill stores them.
    const history = [10, 20, 30, 40, 50, 60, 70, 80].map((likes, i) =>
      makeTweet({
        text: `older ${i}`,
        createdAt: at(-(i + 2) * 86_400_000).toISOString(),
        likeCount: likes,
        retweetCount: 0,
        replyCount: 0,
        quoteCount: 0,
      }),
    );
    await upsertTweets(db.db, watched, history, NOW.toISOString());
    const counts = { retweetCount: 0, replyCount: 0, quoteCount: 0 };
    const below = makeTweet({ text: 'below', likeCount: 164, ...counts });
    const above = makeTweet({ text: 'above', likeCount: 165, ...counts });
    await upsertTweets(db.db, watched, [below, above], NOW.toISOString(), { markForFanout: true });
    expect(await evaluate(NOW)).toMatchObject({ evaluated: 2, fired: 1 });
    const fired = await db.db
      .selectFrom('alert_firings')
      .select(['tweet_id', 'numbers'])
      .executeTakeFirstOrThrow();
    expect(fired.tweet_id).toBe(above.id);
    // The month's posts, the new ones included: 10 to 80, 164 and 165 have the median
    // (50 + 60) / 2 = 55, and 3 x 55 = 165.
    expect(JSON.parse(fired.numbers)).toMatchObject({
      engagement: 165,
      median: 55,
      multiple: 3,
      threshold: 165,
    });
  });

  it('drops the marks of posts deleted since they were marked', async () => {
    const { watched } = await world();
    const posts = [makeTweet({ text: 'launch one' }), makeTweet({ text: 'launch two' })];
    await upsertTweets(db.db, watched, posts, NOW.toISOString(), { markForFanout: true });
    await db.db.deleteFrom('tweets').where('tweet_id', '=', posts[0]!.id).execute();
    expect(await evaluate(NOW)).toMatchObject({ evaluated: 1, fired: 1 });
    expect(await db.db.selectFrom('alert_marks').select('id').execute()).toEqual([]);
  });

  it('evaluates a post marked again after a quiet evaluation, whose mark waits to be deleted', async () => {
    const { watched } = await world();
    const post = makeTweet({ text: 'a quiet post' });
    await upsertTweets(db.db, watched, [post], NOW.toISOString(), { markForFanout: true });
    expect(await evaluate(NOW)).toMatchObject({ evaluated: 1, fired: 0 });
    // New numbers arrive before the next pass.
    await markForAlerts(db.db, watched, [post.id], at(1_000).toISOString());
    expect(await evaluate(at(2_000))).toMatchObject({ evaluated: 1, fired: 0 });
    expect(await evaluate(at(3_000))).toMatchObject({ evaluated: 0 });
    expect(await markedTexts()).toEqual([]);
  });

  it('marks a page of posts with one mark, and evaluates a post marked twice once', async () => {
    const { watched } = await world();
    const page = [
      makeTweet({ text: 'launch one' }),
      makeTweet({ text: 'launch two' }),
      makeTweet({ text: 'launch three' }),
    ];
    await upsertTweets(db.db, watched, page, NOW.toISOString(), { markForFanout: true });
    const marks = await db.db.selectFrom('alert_marks').selectAll().execute();
    expect(marks).toHaveLength(1);
    expect(marks[0]).toMatchObject({ handle_id: watched, claim: null });
    expect(await markedTexts()).toEqual(['launch one', 'launch two', 'launch three']);
    // New numbers of one of them before the pass: a second mark.
    await markForAlerts(db.db, watched, [page[1]!.id], at(1_000).toISOString());
    expect(await db.db.selectFrom('alert_marks').select('id').execute()).toHaveLength(2);
    expect(await evaluate(at(2_000))).toMatchObject({ evaluated: 3, fired: 3, more: false });
    expect(await markedTexts()).toEqual([]);
  });

  it('tells of the new firings once they are stored, not of those stored before', async () => {
    const { watched } = await world();
    const told: FiredAlert[][] = [];
    const pass = createAlertPass(db, { sweepMs: 0, onFired: (firings) => told.push(firings) });
    const context = { now: NOW, channels: ['telegram'] as const, webhooks: false };
    const post = makeTweet({ text: 'launch day' });
    await upsertTweets(db.db, watched, [post], NOW.toISOString(), { markForFanout: true });
    await pass(context);
    const stored = await db.db
      .selectFrom('alert_firings')
      .select(['id', 'user_id', 'handle_id'])
      .execute();
    expect(told).toEqual([
      stored.map((row) => ({ id: row.id, userId: row.user_id, handleId: row.handle_id })),
    ]);
    // The same post marked again fires nothing new, and nothing is told.
    await markForAlerts(db.db, watched, [post.id], at(1_000).toISOString());
    await pass({ ...context, now: at(2_000) });
    expect(told).toHaveLength(1);
  });

  it('claims a batch of marks at a time, and says when more are waiting', async () => {
    const { watched } = await world();
    for (const text of ['launch a', 'launch b', 'launch c']) {
      await upsertTweets(db.db, watched, [makeTweet({ text })], NOW.toISOString(), {
        markForFanout: true,
      });
    }
    const options = { channels: ['telegram'] as const, webhooks: false, limit: 2 };
    expect(await evaluatePendingPosts(db, { now: NOW, ...options })).toMatchObject({
      evaluated: 2,
      fired: 2,
      more: true,
    });
    expect(await evaluatePendingPosts(db, { now: NOW, ...options })).toMatchObject({
      evaluated: 1,
      fired: 1,
      more: false,
    });
    expect(await markedTexts()).toEqual([]);
  });

  it.runIf(dialect === 'postgres')(
    'keeps the claim prepared on the connection that runs it',
    async () => {
      const { watched } = await world();
      await upsertTweets(db.db, watched, [makeTweet({ text: 'launch' })], NOW.toISOString(), {
        markForFanout: true,
      });
      await db.db.connection().execute(async (connection) => {
        const claim = { token: 'one', now: NOW, until: at(60_000), limit: 10 };
        expect((await claimMarks(connection, claim)).posts).toHaveLength(1);
        expect((await claimMarks(connection, { ...claim, token: 'two' })).posts).toEqual([]);
        const { rows } = await sql<{ statement: string }>`
          select statement from pg_prepared_statements`.execute(connection);
        const claims = rows.filter((row) => row.statement.includes('alert_marks'));
        expect(claims).toHaveLength(1);
        expect(claims[0]!.statement.startsWith(PREPARED_MARK)).toBe(true);
      });
    },
  );

  it('migration 0023 makes one mark per handle of the posts marked under 0022, and rolls back', async () => {
    db = await createTestDb(dialect);
    const migrator = await testMigrator(db);
    expect((await migrator.migrateTo('0022-alert-marks')).error).toBeUndefined();
    const handles = await Promise.all(
      ['first', 'second'].map((username) =>
        insertHandle(db.db, { username, backfillDays: 7, now: NOW.toISOString() }),
      ),
    );
    const stored = await db.db
      .insertInto('tweets')
      .values([
        tweetRow(handles[0]!.id, makeTweet({ text: 'first a' })),
        tweetRow(handles[1]!.id, makeTweet({ text: 'second a' })),
        tweetRow(handles[0]!.id, makeTweet({ text: 'first b' })),
        tweetRow(handles[0]!.id, makeTweet({ text: 'first, looked at' })),
      ])
      .returning('id')
      .execute();
    const ids = stored.map((row) => row.id);
    await sql`
      insert into alert_marks (tweet_row, marked_at)
      values (${ids[0]}, ${NOW.toISOString()}), (${ids[1]}, ${NOW.toISOString()}),
        (${ids[2]}, ${at(1_000).toISOString()})`.execute(db.db);

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const marks = await db.db
      .selectFrom('alert_marks')
      .select(['handle_id', 'tweet_rows', 'marked_at'])
      .orderBy('id')
      .execute();
    expect(marks.map((mark) => ({ ...mark, tweet_rows: JSON.parse(mark.tweet_rows) }))).toEqual([
      {
        handle_id: handles[0]!.id,
        tweet_rows: [ids[0], ids[2]],
        marked_at: at(1_000).toISOString(),
      },
      { handle_id: handles[1]!.id, tweet_rows: [ids[1]], marked_at: NOW.toISOString() },
    ]);

    expect((await migrator.migrateTo('0022-alert-marks')).error).toBeUndefined();
    const { rows } = await sql<{ tweet_row: number }>`
      select tweet_row from alert_marks order by tweet_row`.execute(db.db);
    expect(rows.map((row) => row.tweet_row)).toEqual([ids[0], ids[1], ids[2]]);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await markedTexts()).toEqual(['first a', 'second a', 'first b']);
  });

  it('migration 0022 keeps the posts marked under 0021, and rolls back cleanly', async () => {
    db = await createTestDb(dialect);
    const migrator = await testMigrator(db);
    expect((await migrator.migrateTo('0021-alerts-and-webhooks')).error).toBeUndefined();
    const handle = await insertHandle(db.db, {
      username: 'upgraded',
      backfillDays: 7,
      now: NOW.toISOString(),
    });
    await db.db
      .insertInto('tweets')
      .values([
        tweetRow(handle.id, makeTweet({ text: 'pending' })),
        tweetRow(handle.id, makeTweet({ text: 'looked at' })),
      ])
      .execute();
    const yes = sql.raw(dialect === 'postgres' ? 'true' : '1');
    await sql`update tweets set alerts_pending = ${yes} where text = 'pending'`.execute(db.db);

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await markedTexts()).toEqual(['pending']);

    expect((await migrator.migrateTo('0021-alerts-and-webhooks')).error).toBeUndefined();
    const { rows } = await sql<{ text: string }>`
      select text from tweets where alerts_pending = ${yes} order by id`.execute(db.db);
    expect(rows.map((row) => row.text)).toEqual(['pending']);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await markedTexts()).toEqual(['pending']);
  });
});

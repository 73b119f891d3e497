import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, createTestDb, type TestDb } from '../../../test/helpers.js';
import { makeTweet } from '../../../test/source-tweets.js';
import { insertHandle, type HandleRow } from '../handles/handles.repository.js';
import { parseTweetRow } from '../tweets/stored-tweet.js';
import { insertMetricSnapshots, upsertTweets } from '../tweets/tweets.repository.js';
import { listMetricSnapshots, listWindowTweets } from './analytics.repository.js';

const DAY_MS = 86_400_000;

describe.each(DIALECTS)('analytics reads (%s)', (dialect) => {
  let db: TestDb;
  let handle: HandleRow;
  const now = Date.UTC(2026, 10, 29, 8, 0, 0);
  const iso = (ms: number) => new Date(ms).toISOString();
  const since = iso(now - 30 * DAY_MS);

  beforeAll(async () => {
    db = await createTestDb(dialect);
    handle = await insertHandle(db.db, { username: 'reader', backfillDays: 30, now: iso(now) });
  });
  afterAll(() => db.dispose());

  it('reads a tweet of the window as its whole row reads, and no tweet before it', async () => {
    const kept = [
      makeTweet({
        createdAt: iso(now - DAY_MS),
        referencedTypes: ['replied_to', 'quoted'],
        inReplyToUserId: '42',
        conversationId: '7',
        hashtags: ['Perch', 'perch'],
        urls: ['https://example.com/a?b=1'],
        media: [{ type: 'video', url: null, previewUrl: 'https://pbs.twimg.com/v.jpg' }],
      }),
      makeTweet({ createdAt: since, lang: null, impressionCount: null }),
      makeTweet({ createdAt: iso(now - 2 * DAY_MS), referencedTypes: ['retweeted'] }),
    ];
    const before = makeTweet({ createdAt: iso(now - 31 * DAY_MS) });
    await upsertTweets(db.db, handle.id, [...kept, before], iso(now));

    const read = await listWindowTweets(db.db, handle.id, since);
    const whole = (
      await db.db.selectFrom('tweets').selectAll().where('handle_id', '=', handle.id).execute()
    )
      .map(parseTweetRow)
      .filter((tweet) => tweet.id !== before.id);
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(read.sort(byId)).toEqual(whole.sort(byId));
    expect(read.map((tweet) => tweet.id).sort()).toEqual(kept.map((tweet) => tweet.id).sort());
  });

  it('reads the tweets of the window exactly as it parses their rows, texts of every kind', async () => {
    const other = await insertHandle(db.db, { username: 'texts', backfillDays: 30, now: iso(now) });
    expect(await listWindowTweets(db.db, other.id, since)).toEqual([]);

    const texts = [
      'quotes " and \\ backslashes \\" and a tab\there',
      'lines\nand\r\nbreaks, a form feed \f, a bell \u0007 and \u2028 \u2029',
      'emoji 🦜🏳️‍🌈, astral letters 𝒜𝓅 and accents: Ça, İstanbul, ﬁ',
      '<script>alert(1)</script> & [1,2] {"a":null}',
      'null',
      '',
    ];
    const tweets = texts.map((text, i) =>
      makeTweet({
        text,
        createdAt: iso(now - (i + 1) * 3_600_000),
        lang: i % 2 ? null : 'en',
        impressionCount: i % 3 ? null : 123_456_789 + i,
        conversationId: i % 2 ? null : '9007199254740993',
        inReplyToUserId: i % 3 ? null : '12',
        referencedTypes: i === 2 ? ['retweeted'] : i === 3 ? ['replied_to', 'quoted'] : [],
        hashtags: i === 1 ? ['Perch', 'ça'] : [],
        urls: i === 4 ? ['https://example.com/"q"?a=\\'] : [],
        media:
          i === 5 ? [{ type: 'photo', url: 'https://pbs.twimg.com/p.jpg', previewUrl: null }] : [],
      }),
    );
    tweets[0]!.likeCount = 987_654_321;
    await upsertTweets(
      db.db,
      other.id,
      [...tweets, makeTweet({ createdAt: iso(now - 40 * DAY_MS) })],
      iso(now),
    );

    const read = await listWindowTweets(db.db, other.id, since);
    const rows = (
      await db.db
        .selectFrom('tweets')
        .selectAll()
        .where('handle_id', '=', other.id)
        .where('created_at', '>=', since)
        .execute()
    ).map(parseTweetRow);
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(read.sort(byId)).toEqual(rows.sort(byId));
    expect(read.map((tweet) => tweet.text).sort()).toEqual([...texts].sort());
  });

  it('reads the metric snapshots taken since the window start alone, through its index', async () => {
    const tweet = makeTweet();
    await upsertTweets(db.db, handle.id, [tweet], iso(now));
    for (const daysAgo of [90, 31, 29, 1]) {
      await insertMetricSnapshots(
        db.db,
        handle.id,
        [{ ...tweet, likeCount: daysAgo }],
        iso(now - daysAgo * DAY_MS),
      );
    }

    expect(await listMetricSnapshots(db.db, handle.id + 1000, since)).toEqual([]);
    const snapshots = await listMetricSnapshots(db.db, handle.id, since);
    expect(snapshots.find((snapshot) => snapshot.likes === 1)).toEqual({
      tweetId: tweet.id,
      takenAt: now - DAY_MS,
      likes: 1,
      retweets: tweet.retweetCount,
      replies: tweet.replyCount,
      quotes: tweet.quoteCount,
    });
    expect(snapshots.map((snapshot) => snapshot.likes).sort((a, b) => a - b)).toEqual([1, 29]);
    expect(snapshots.map((snapshot) => snapshot.takenAt).sort((a, b) => a - b)).toEqual([
      now - 29 * DAY_MS,
      now - DAY_MS,
    ]);

    if (dialect === 'sqlite') {
      const { rows } = await sql<{ detail: string }>`explain query plan
        select tweet_id, taken_at from tweet_metric_snapshots
        where handle_id = ${handle.id} and taken_at >= ${since}`.execute(db.db);
      expect(rows.map((row) => row.detail).join('\n')).toContain(
        'tweet_metric_snapshots_handle_taken_idx (handle_id=? AND taken_at>?)',
      );
    }
  });
});

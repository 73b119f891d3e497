import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, createTestDb, type TestDb } from '../../../test/helpers.js';
import { makeTweet } from '../../../test/source-tweets.js';
import { countWords, WORD_COUNTS_VERSION } from '../../analytics/index.js';
import { insertHandle, type HandleRow } from '../handles/handles.repository.js';
import { upsertTweets } from './tweets.repository.js';
import { keepWordDays, wordCountsOfDays } from './word-days.repository.js';

const DAY_MS = 86_400_000;

describe.each(DIALECTS)('word counts kept per UTC day (%s)', (dialect) => {
  let db: TestDb;
  let handle: HandleRow;
  const now = Date.UTC(2026, 10, 29, 8, 0, 0);
  const iso = (ms: number) => new Date(ms).toISOString();
  /** Midnight UTC, three and two days before `now`: two whole days. */
  const span = { start: Date.UTC(2026, 10, 26), end: Date.UTC(2026, 10, 28) };
  const rows = () =>
    db.db
      .selectFrom('tweet_word_days')
      .select(['day', 'generation', 'counts'])
      .where('handle_id', '=', handle.id)
      .orderBy('day')
      .execute();
  const sorted = (counts: ReadonlyMap<string, number>) => [...counts].sort();

  beforeAll(async () => {
    db = await createTestDb(dialect);
    handle = await insertHandle(db.db, { username: 'wordy', backfillDays: 30, now: iso(now) });
  });
  afterAll(() => db.dispose());

  const first = makeTweet({ text: 'Parrots parrots #birds', createdAt: iso(span.start + 1000) });
  const second = makeTweet({ text: 'perch and parrots', createdAt: iso(span.start + DAY_MS - 1) });
  const retweet = makeTweet({
    text: 'retweeted words never count',
    createdAt: iso(span.start + DAY_MS),
    referencedTypes: ['retweeted'],
  });
  const outside = makeTweet({ text: 'outside the span', createdAt: iso(span.end) });

  it('a write clears the days of its new posts; a request counts them once and keeps them', async () => {
    await upsertTweets(db.db, handle.id, [first, second, retweet, outside], iso(now));
    expect(await rows()).toEqual([
      { day: '2026-11-26', generation: 1, counts: null },
      { day: '2026-11-27', generation: 1, counts: null },
      { day: '2026-11-28', generation: 1, counts: null },
    ]);

    const counted = await wordCountsOfDays(db.db, handle.id, span);
    expect(counted.start).toBe(span.start);
    expect(counted.end).toBe(span.end);
    expect(sorted(counted.counts)).toEqual(sorted(countWords([first.text, second.text])));
    expect(await rows()).toEqual([
      { day: '2026-11-26', generation: 1, counts: expect.any(String) },
      // A day with no posts but a retweet is kept too, with nothing in it.
      { day: '2026-11-27', generation: 1, counts: `[${WORD_COUNTS_VERSION}]` },
      { day: '2026-11-28', generation: 1, counts: null },
    ]);
    // Kept counts are read back as they were counted.
    expect(sorted((await wordCountsOfDays(db.db, handle.id, span)).counts)).toEqual(
      sorted(counted.counts),
    );
  });

  it('stored posts read again with the same text keep the counts; a changed text clears its day', async () => {
    await upsertTweets(db.db, handle.id, [{ ...first, likeCount: 99 }], iso(now));
    expect((await rows())[0]).toMatchObject({ generation: 1, counts: expect.any(String) });

    const longer = { ...first, text: 'Parrots parrots #birds, the full text of a long post' };
    await upsertTweets(db.db, handle.id, [longer], iso(now));
    expect((await rows())[0]).toEqual({ day: '2026-11-26', generation: 2, counts: null });
    expect(sorted((await wordCountsOfDays(db.db, handle.id, span)).counts)).toEqual(
      sorted(countWords([longer.text, second.text])),
    );
  });

  it('counts made before a write that cleared the day again are not kept', async () => {
    const [before] = await rows();
    const late = makeTweet({ text: 'arrived meanwhile', createdAt: iso(span.start + 5000) });
    await upsertTweets(db.db, handle.id, [late], iso(now));
    // A request that read generation `before.generation` and the posts before `late` came.
    const stale = new Map([['stale', 1]]);
    await keepWordDays(db.db, handle.id, [
      { day: '2026-11-26', generation: before!.generation, counts: stale },
    ]);
    expect((await rows())[0]).toEqual({
      day: '2026-11-26',
      generation: before!.generation + 1,
      counts: null,
    });
    // A request that found no row at all does not overwrite one a write made meanwhile.
    await keepWordDays(db.db, handle.id, [
      { day: '2026-11-26', generation: undefined, counts: stale },
    ]);
    expect((await rows())[0]!.counts).toBeNull();
    expect((await wordCountsOfDays(db.db, handle.id, span)).counts.get('arrived')).toBe(1);
  });

  it('counted another way (an older version of the counting) are counted again', async () => {
    await db.db
      .updateTable('tweet_word_days')
      .set({ counts: JSON.stringify([WORD_COUNTS_VERSION - 1, 'parrots', 1000]) })
      .where('handle_id', '=', handle.id)
      .where('day', '=', '2026-11-26')
      .execute();
    const counted = await wordCountsOfDays(db.db, handle.id, span);
    expect(counted.counts.get('parrots')).toBe(3);
    const [row] = await rows();
    expect(JSON.parse(row!.counts!)[0]).toBe(WORD_COUNTS_VERSION);
  });

  it('days that had no row yet are kept as new rows', async () => {
    const earlier = { start: span.start - 3 * DAY_MS, end: span.start };
    expect((await wordCountsOfDays(db.db, handle.id, earlier)).counts.size).toBe(0);
    expect((await rows()).slice(0, 3)).toEqual(
      ['2026-11-23', '2026-11-24', '2026-11-25'].map((day) => ({
        day,
        generation: 0,
        counts: `[${WORD_COUNTS_VERSION}]`,
      })),
    );
  });

  it('go with the handle', async () => {
    await db.db.deleteFrom('handles').where('id', '=', handle.id).execute();
    expect(await rows()).toEqual([]);
  });
});

import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tweetRow } from '../../../test/factories.js';
import { DIALECTS, createTestDb, testMigrator, type TestDb } from '../../../test/helpers.js';
import { makeTweet } from '../../../test/notify-helpers.js';
import { insertHandle, type HandleRow } from '../handles/handles.repository.js';
import { browseTweets, fts5Query, searchWords, tsQuery } from './tweet-browse.repository.js';
import { upsertTweets } from './tweets.repository.js';

describe('search words', () => {
  it('keeps runs of letters, digits and marks; everything else separates them', () => {
    expect(searchWords('  Launch day!  ')).toEqual(['Launch', 'day']);
    expect(searchWords(`"quoted" -minus key:value a*b (x) it's`)).toEqual([
      'quoted',
      'minus',
      'key',
      'value',
      'a',
      'b',
      'x',
      'it',
      's',
    ]);
    expect(searchWords('café 東京 ロケット n\u0303o')).toEqual([
      'café',
      '東京',
      'ロケット',
      'n\u0303o',
    ]);
    expect(searchWords('🌕 ❤️ *** "" \\ %')).toEqual([]);
    expect(searchWords('')).toEqual([]);
  });

  it('quotes every word for FTS5, the last as a prefix', () => {
    expect(fts5Query(['launch'])).toBe('"launch"*');
    expect(fts5Query(['NEAR', 'day'])).toBe('"NEAR" "day"*');
    expect(fts5Query(['a"b'])).toBe('"a""b"*');
  });

  it('quotes every word as a tsquery lexeme, the last as a prefix', () => {
    expect(tsQuery(['launch'])).toBe(`'launch':*`);
    expect(tsQuery(['it', 's'])).toBe(`'it' & 's':*`);
    expect(tsQuery([`o'k`, 'a\\b'])).toBe(`'o''k' & 'a\\\\b':*`);
  });
});

describe.each(DIALECTS)('tweet search index (%s)', (dialect) => {
  let db: TestDb;
  let handle: HandleRow;

  beforeAll(async () => {
    db = await createTestDb(dialect);
    handle = await insertHandle(db.db, {
      username: 'indexed',
      backfillDays: 7,
      now: new Date().toISOString(),
    });
  });
  afterAll(() => db.dispose());

  const find = async (q: string, handleId = handle.id) =>
    (
      await browseTweets(db.db, dialect, handleId, {
        words: searchWords(q),
        sort: 'newest',
        offset: 0,
        limit: 100,
      })
    ).rows.map((row) => row.text);

  /**
   * The search index holds exactly the stored tweets' words: SQLite's FTS5 checks itself
   * against the tweets table (and throws on any difference); on PostgreSQL every tweet has its
   * tweet_search row with the words of its current text, and nothing else is there.
   */
  async function expectIndexInStep() {
    if (dialect === 'sqlite') {
      await sql`insert into tweets_fts (tweets_fts, rank) values ('integrity-check', 1)`.execute(
        db.db,
      );
      return;
    }
    const { rows } = await sql<{ count: number }>`
      select count(*) as count from tweets t
      full join tweet_search s on s.tweet_row_id = t.id
      where t.id is null or s.tweet_row_id is null or s.handle_id <> t.handle_id
        or s.document <> to_tsvector('simple', t.text)`.execute(db.db);
    expect(Number(rows[0]?.count)).toBe(0);
  }

  it('never fails on any input: every string is a valid query of both engines', async () => {
    await upsertTweets(db.db, handle.id, [makeTweet({ text: 'plain words here' })], '2026-01-01');
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 40 }), async (text) => {
        const words = searchWords(text);
        if (words.length === 0) return;
        await find(text);
      }),
      { numRuns: 300, seed: 20_261_126 },
    );
    for (const text of ['NEAR(a b)', 'a OR b', 'a AND NOT b', '^a', 'a + b', '{a b}: c', 'a<->b']) {
      await expect(find(text)).resolves.toEqual([]);
    }
  });

  it('follows inserts, text edits and deletes, cascades included', async () => {
    const other = await insertHandle(db.db, {
      username: 'short_lived',
      backfillDays: 7,
      now: new Date().toISOString(),
    });
    const kept = makeTweet({ text: 'Orbit reached' });
    await upsertTweets(db.db, other.id, [kept, makeTweet({ text: 'Orbit lost' })], '2026-01-01');
    expect(await find('orbit', other.id)).toHaveLength(2);
    await upsertTweets(db.db, other.id, [{ ...kept, text: 'Descent begun' }], '2026-01-02');
    expect(await find('orbit', other.id)).toEqual(['Orbit lost']);
    expect(await find('descent', other.id)).toEqual(['Descent begun']);
    await expectIndexInStep();
    await db.db.deleteFrom('tweets').where('tweet_id', '=', kept.id).execute();
    expect(await find('descent', other.id)).toEqual([]);
    await expectIndexInStep();
    // Removing the handle removes its tweets (foreign key cascade) and their index entries.
    await db.db.deleteFrom('handles').where('id', '=', other.id).execute();
    await expectIndexInStep();
    if (dialect === 'sqlite') {
      const { rows } = await sql<{ count: number }>`
        select count(*) as count from tweets_fts where tweets_fts match 'orbit'`.execute(db.db);
      expect(rows[0]?.count).toBe(0);
    }
  });

  it('migration 0012 indexes the tweets stored before it, and rolls back cleanly', async () => {
    const migrator = await testMigrator(db);
    const down = await migrator.migrateTo('0011-scale-out');
    expect(down.error).toBeUndefined();
    const early = await insertHandle(db.db, {
      username: 'before_search',
      backfillDays: 7,
      now: new Date().toISOString(),
    });
    // Columns of that time only: today's upsert also writes columns of later migrations.
    await db.db
      .insertInto('tweets')
      .values(
        [
          makeTweet({ text: 'Stored before search existed' }),
          makeTweet({ text: 'Another one' }),
        ].map((tweet) => tweetRow(early.id, tweet, '2026-01-01')),
      )
      .execute();
    const up = await migrator.migrateToLatest();
    expect(up.error).toBeUndefined();
    expect(await find('existed', early.id)).toEqual(['Stored before search existed']);
    expect(await find('stor', early.id)).toEqual(['Stored before search existed']);
    await expectIndexInStep();
  });

  it.runIf(dialect === 'postgres')(
    "migration 0025 indexes a statement's posts at once, and rolls back to the row trigger",
    async () => {
      const handle = await insertHandle(db.db, {
        username: 'by_statement',
        backfillDays: 7,
        now: new Date().toISOString(),
      });
      const page = Array.from({ length: 120 }, (_, i) => makeTweet({ text: `Signal ${i}` }));
      await upsertTweets(db.db, handle.id, page, '2026-01-01');
      expect(await find('signal', handle.id)).toHaveLength(100);
      await expectIndexInStep();
      const migrator = await testMigrator(db);
      expect((await migrator.migrateTo('0024-tweet-word-days')).error).toBeUndefined();
      await upsertTweets(db.db, handle.id, [makeTweet({ text: 'Signal by row' })], '2026-01-02');
      await expectIndexInStep();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      await db.db.deleteFrom('handles').where('id', '=', handle.id).execute();
      await expectIndexInStep();
    },
  );
});

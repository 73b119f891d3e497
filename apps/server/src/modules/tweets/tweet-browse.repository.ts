import { sql, type Expression, type SqlBool } from 'kysely';
import type { TweetSort, TweetType } from '@perch/shared';
import type { Dialect, Executor } from '../../db/index.js';
import { countRows } from '../../db/queries.js';
import { postIdLength } from '../../db/posting-order.js';
import type { TweetRow } from '../../db/types.js';

/**
 * The words of a search text: runs of letters, digits and marks. Anything else (spaces,
 * punctuation, quotes, `*`, `-`, `:`, emoji) only separates words, so no input can reach the
 * full-text engines as query syntax. Both engines split stored text the same way (FTS5's
 * unicode61 with letters, digits and marks as token characters; PostgreSQL's parser).
 */
export function searchWords(text: string): string[] {
  // A lone mark (an emoji's variation selector) is no word to look for.
  return (text.match(/[\p{L}\p{N}\p{Co}\p{M}]+/gu) ?? []).filter((word) =>
    /[\p{L}\p{N}\p{Co}]/u.test(word),
  );
}

/**
 * An FTS5 query: every word as a quoted string (never an operator or column name), all of
 * them required, the last one as a prefix (the person may still be typing it).
 */
export function fts5Query(words: readonly string[]): string {
  return words
    .map((word, i) => `"${word.replaceAll('"', '""')}"${i === words.length - 1 ? '*' : ''}`)
    .join(' ');
}

/** The same as a PostgreSQL tsquery: quoted lexemes joined by &, the last with :* (prefix). */
export function tsQuery(words: readonly string[]): string {
  return words
    .map((word, i) => {
      const quoted = `'${word.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
      return i === words.length - 1 ? `${quoted}:*` : quoted;
    })
    .join(' & ');
}

export interface TweetBrowseFilter {
  /** Search words (searchWords); none: every tweet. */
  words: readonly string[];
  type?: TweetType;
  sort: TweetSort;
  offset: number;
  limit: number;
}

/** The tweet's text holds every word, in the dialect's full-text index (migration 0012). */
function matchesWords(
  dialect: Dialect,
  handleId: number,
  words: readonly string[],
): Expression<SqlBool> {
  if (dialect === 'postgres') {
    return sql<SqlBool>`${sql.ref('tweets.id')} in (
      select tweet_row_id from tweet_search
      where handle_id = ${handleId} and document @@ to_tsquery('simple', ${tsQuery(words)}))`;
  }
  return sql<SqlBool>`${sql.ref('tweets.id')} in (
    select rowid from tweets_fts where tweets_fts match ${fts5Query(words)})`;
}

/** Stored references and media are JSON arrays written by upsertTweets ('[]' when none). */
function ofType(type: TweetType): Expression<SqlBool> {
  switch (type) {
    case 'post':
      return sql<SqlBool>`${sql.ref('tweets.referenced_types')} = '[]'`;
    case 'reply':
      return sql<SqlBool>`${sql.ref('tweets.referenced_types')} like '%"replied_to"%'`;
    case 'quote':
      return sql<SqlBool>`${sql.ref('tweets.referenced_types')} like '%"quoted"%'`;
    case 'retweet':
      return sql<SqlBool>`${sql.ref('tweets.referenced_types')} like '%"retweeted"%'`;
    case 'media':
      return sql<SqlBool>`${sql.ref('tweets.media')} <> '[]'`;
  }
}

/**
 * A tweet's engagement: likes + retweets + replies + quotes (docs/analytics.md), written exactly as
 * PostgreSQL's index tweets_handle_engagement_idx has it, so the planner reads the order there.
 */
const ENGAGEMENT = sql`(like_count + retweet_count + reply_count + quote_count)`;

function filtered(db: Executor, dialect: Dialect, handleId: number, filter: TweetBrowseFilter) {
  let query = db.selectFrom('tweets').where('tweets.handle_id', '=', handleId);
  if (filter.words.length > 0) {
    query = query.where(matchesWords(dialect, handleId, filter.words));
  }
  if (filter.type) query = query.where(ofType(filter.type));
  return query;
}

async function countFiltered(
  db: Executor,
  dialect: Dialect,
  handleId: number,
  filter: TweetBrowseFilter,
): Promise<number> {
  if (dialect === 'postgres' && filter.words.length > 0 && !filter.type) {
    // A search alone is counted in tweet_search, without reading the tweets.
    const { rows } = await sql<{ count: number }>`
      select count(*) as count from tweet_search
      where handle_id = ${handleId} and document @@ to_tsquery('simple', ${tsQuery(filter.words)})`.execute(
      db,
    );
    return Number(rows[0]?.count ?? 0);
  }
  return countRows(filtered(db, dialect, handleId, filter));
}

/**
 * One page of a handle's tweets that match the filter, in its order (ties newest first), and
 * how many match in all. Count and page are separate queries: the page stops after `limit`
 * rows read in index order, and the count reads only the handle's index and the search
 * index, never the rows (one query with `count(*) over ()` must read and sort every match).
 */
export async function browseTweets(
  db: Executor,
  dialect: Dialect,
  handleId: number,
  filter: TweetBrowseFilter,
): Promise<{ rows: TweetRow[]; total: number }> {
  let query = filtered(db, dialect, handleId, filter).selectAll('tweets');
  if (filter.sort === 'likes') query = query.orderBy('tweets.like_count', 'desc');
  if (filter.sort === 'engagement') query = query.orderBy(ENGAGEMENT, 'desc');
  // Ties newest first by post id (lib/posting-order.ts). Where an index gives the order up to
  // created_at, only the rows of one second are sorted by the id.
  query = query
    .orderBy('tweets.created_at', 'desc')
    .orderBy(postIdLength('tweets.tweet_id'), 'desc')
    .orderBy('tweets.tweet_id', 'desc')
    .offset(filter.offset)
    .limit(filter.limit);
  const [total, rows] = await Promise.all([
    countFiltered(db, dialect, handleId, filter),
    query.execute(),
  ]);
  return { rows, total };
}

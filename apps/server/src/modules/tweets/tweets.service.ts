import type { Tweet, TweetSort, TweetType } from '@perch/shared';
import { toApiTweet } from '../../analytics/api-tweet.js';
import type { Db } from '../../db/index.js';
import { firedRuleNames } from '../alerts/alerts.repository.js';
import type { HandleRow } from '../handles/handles.repository.js';
import { parseTweetRow } from './stored-tweet.js';
import { browseTweets, searchWords } from './tweet-browse.repository.js';
import type { TweetRow } from '../../db/types.js';

/** Maps a stored tweet to the API's tweet object. */
export function toTweet(row: TweetRow, username: string): Tweet {
  return toApiTweet(parseTweetRow(row), username);
}

export interface TweetPage {
  tweets: Tweet[];
  page: number;
  limit: number;
  total: number;
  has_more: boolean;
}

/** What GET /handles/{handle}/tweets asks for (tweetPageQuerySchema, parsed). */
export interface TweetPageRequest {
  page: number;
  limit: number;
  /** Search text, trimmed; '' for none. */
  q?: string;
  type?: TweetType;
  sort?: TweetSort;
}

/**
 * One page of a handle's tweets: newest first unless sorted otherwise, only those holding every
 * word of `q` (the last as a prefix) and of `type` when given. A search without any word (only
 * punctuation or symbols) matches nothing. Each tweet names the reader's alert rules that fired
 * on it (one query for the page).
 */
export async function tweetPage(
  db: Db,
  handle: HandleRow,
  { page, limit, q = '', type, sort = 'newest' }: TweetPageRequest,
  userId: number,
): Promise<TweetPage> {
  const offset = (page - 1) * limit;
  const words = searchWords(q);
  const { rows, total } =
    q !== '' && words.length === 0
      ? { rows: [], total: 0 }
      : await browseTweets(db.db, db.dialect, handle.id, { words, type, sort, offset, limit });
  const ruleNames = await firedRuleNames(
    db.db,
    userId,
    handle.id,
    rows.map((row) => row.tweet_id),
  );
  return {
    tweets: rows.map((row) => ({
      ...toTweet(row, handle.username),
      alert_rule_names: ruleNames.get(row.tweet_id) ?? [],
    })),
    page,
    limit,
    total,
    has_more: offset + rows.length < total,
  };
}

import type { Tweet, TweetSort, TweetType } from '@perch/shared';
import { toApiTweet } from '../../analytics/api-tweet.js';
import type { Db } from '../../db/index.js';
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
 * punctuation or symbols) matches nothing.
 */
export async function tweetPage(
  db: Db,
  handle: HandleRow,
  { page, limit, q = '', type, sort = 'newest' }: TweetPageRequest,
): Promise<TweetPage> {
  const offset = (page - 1) * limit;
  const words = searchWords(q);
  const { rows, total } =
    q !== '' && words.length === 0
      ? { rows: [], total: 0 }
      : await browseTweets(db.db, db.dialect, handle.id, { words, type, sort, offset, limit });
  return {
    tweets: rows.map((row) => toTweet(row, handle.username)),
    page,
    limit,
    total,
    has_more: offset + rows.length < total,
  };
}

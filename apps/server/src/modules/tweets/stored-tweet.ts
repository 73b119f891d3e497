import type { AnalyticsTweet } from '../../analytics/types.js';
import type { ReferenceType } from '../../domain/tweet-source.js';
import type { TweetRow } from '../../db/types.js';

/**
 * The columns parseTweetRow reads, and all a query for it should select. Whole rows cost far
 * more: besides the bytes, V8 keeps a better-sqlite3 row of 20 or more columns as a slow
 * dictionary object, and reading 10,000 of them took about 3.5x the time of these 15.
 */
export const PARSED_TWEET_COLUMNS = [
  'tweet_id',
  'text',
  'created_at',
  'lang',
  'like_count',
  'retweet_count',
  'reply_count',
  'quote_count',
  'impression_count',
  'conversation_id',
  'in_reply_to_user_id',
  'referenced_types',
  'hashtags',
  'urls',
  'media',
] as const;

/** A stored tweet as parseTweetRow reads it (the text null when it was left out of the load). */
export type ParsedTweetRow = Omit<Pick<TweetRow, (typeof PARSED_TWEET_COLUMNS)[number]>, 'text'> & {
  text: string | null;
};

/** A JSON array column; anything unreadable counts as empty (rows are written by us). */
function jsonArray<T>(text: string): T[] {
  // Most tweets have no hashtags, links or media: skip the parser for them.
  if (text === '[]' || text === '') return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}

/** What a tweet's `referenced_types` say about its kind. */
export interface TweetKind {
  isRetweet: boolean;
  isQuote: boolean;
  isReply: boolean;
}

/**
 * A tweet's kind by its stored `referenced_types` text. There are only a handful of such texts
 * (the lists of up to three reference types), so each is parsed once per process rather than
 * once per row; the bound only matters for rows not written by us.
 */
const kindsByText = new Map<string, TweetKind>();
const KINDS_KEPT = 64;

/** A tweet's kind from its stored `referenced_types` (shared and frozen: read, never change). */
export function tweetKind(referencedTypes: string): TweetKind {
  const known = kindsByText.get(referencedTypes);
  if (known) return known;
  const references = jsonArray<ReferenceType>(referencedTypes);
  const kind: TweetKind = Object.freeze({
    isRetweet: references.includes('retweeted'),
    isQuote: references.includes('quoted'),
    isReply: references.includes('replied_to'),
  });
  if (kindsByText.size < KINDS_KEPT) kindsByText.set(referencedTypes, kind);
  return kind;
}

/** The number written with `count` digits from `at`, or -1 when one of them is no digit. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** Epoch ms of midnight UTC of each day seen, by its digits (yyyymmdd). */
const dayStarts = new Map<number, number>();
const DAYS_KEPT = 10_000;

/**
 * The epoch ms of a stored time, exactly as Date.parse reads it. Times are stored as
 * `toISOString()` text (2026-11-29T08:00:00.000Z), read here digit by digit with the day's
 * start parsed once per day: Date.parse costs up to a microsecond a call, a tenth of a second
 * for 100,000 tweets. Any other form, or a time out of range, is left to Date.parse.
 */
export function storedTime(text: string): number {
  if (
    text.length !== 24 ||
    text[4] !== '-' ||
    text[7] !== '-' ||
    text[10] !== 'T' ||
    text[13] !== ':' ||
    text[16] !== ':' ||
    text[19] !== '.' ||
    text[23] !== 'Z'
  ) {
    return Date.parse(text);
  }
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const date = digitsAt(text, 8, 2);
  const hours = digitsAt(text, 11, 2);
  const minutes = digitsAt(text, 14, 2);
  const seconds = digitsAt(text, 17, 2);
  const millis = digitsAt(text, 20, 3);
  if (
    year < 0 ||
    month < 0 ||
    date < 0 ||
    millis < 0 ||
    !(hours >= 0 && hours <= 23 && minutes >= 0 && minutes <= 59 && seconds >= 0 && seconds <= 59)
  ) {
    return Date.parse(text);
  }
  const day = year * 10_000 + month * 100 + date;
  let start = dayStarts.get(day);
  if (start === undefined) {
    // An impossible day (February 30th) gives what Date.parse gives the whole time.
    start = Date.parse(`${text.slice(0, 10)}T00:00:00.000Z`);
    if (dayStarts.size < DAYS_KEPT) dayStarts.set(day, start);
  }
  return start + hours * 3_600_000 + minutes * 60_000 + seconds * 1000 + millis;
}

/** A stored tweet row, parsed: what the API's tweet objects and the analytics engine read. */
export function parseTweetRow(row: ParsedTweetRow): AnalyticsTweet {
  return parsedTweet(
    row.tweet_id,
    row.text,
    row.created_at,
    row.lang,
    row.like_count,
    row.retweet_count,
    row.reply_count,
    row.quote_count,
    row.impression_count,
    row.conversation_id,
    row.in_reply_to_user_id,
    row.referenced_types,
    row.hashtags,
    row.urls,
    row.media,
  );
}

/** The values of PARSED_TWEET_COLUMNS of one stored tweet, in that order. */
export type ParsedTweetValues = ColumnValues<typeof PARSED_TWEET_COLUMNS>;
type ColumnValues<Columns extends readonly (keyof ParsedTweetRow)[]> = {
  readonly [I in keyof Columns]: ParsedTweetRow[Columns[I]];
};

/**
 * A stored tweet read as the list of its PARSED_TWEET_COLUMNS values (a row as a JSON array
 * gives it), parsed exactly as parseTweetRow parses the row: no object per row on the way.
 */
export function parseTweetValues(values: ParsedTweetValues): AnalyticsTweet {
  return parsedTweet(
    values[0],
    values[1],
    values[2],
    values[3],
    values[4],
    values[5],
    values[6],
    values[7],
    values[8],
    values[9],
    values[10],
    values[11],
    values[12],
    values[13],
    values[14],
  );
}

function parsedTweet(
  tweetId: string,
  text: string | null,
  createdAt: string,
  lang: string | null,
  likeCount: number,
  retweetCount: number,
  replyCount: number,
  quoteCount: number,
  impressionCount: number | null,
  conversationId: string | null,
  inReplyToUserId: string | null,
  referencedTypes: string,
  hashtags: string,
  urls: string,
  media: string,
): AnalyticsTweet {
  const kind = tweetKind(referencedTypes);
  return {
    id: tweetId,
    text,
    createdAt: storedTime(createdAt),
    lang,
    likes: likeCount,
    retweets: retweetCount,
    replies: replyCount,
    quotes: quoteCount,
    impressions: impressionCount,
    conversationId,
    inReplyToUserId,
    isRetweet: kind.isRetweet,
    isQuote: kind.isQuote,
    isReply: kind.isReply,
    hashtags: jsonArray<string>(hashtags),
    urls: jsonArray<string>(urls),
    media: jsonArray<AnalyticsTweet['media'][number]>(media),
  };
}

import type { AnalyticsTweet } from '../../analytics/types.js';
import type { ReferenceType } from '../../domain/tweet-source.js';
import type { TweetRow } from '../../db/types.js';

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

/** A stored tweet row, parsed: what the API's tweet objects and the analytics engine read. */
export function parseTweetRow(row: TweetRow): AnalyticsTweet {
  const references = jsonArray<ReferenceType>(row.referenced_types);
  return {
    id: row.tweet_id,
    text: row.text,
    createdAt: Date.parse(row.created_at),
    lang: row.lang,
    likes: row.like_count,
    retweets: row.retweet_count,
    replies: row.reply_count,
    quotes: row.quote_count,
    impressions: row.impression_count,
    conversationId: row.conversation_id,
    inReplyToUserId: row.in_reply_to_user_id,
    isRetweet: references.includes('retweeted'),
    isQuote: references.includes('quoted'),
    isReply: references.includes('replied_to'),
    hashtags: jsonArray<string>(row.hashtags),
    urls: jsonArray<string>(row.urls),
    media: jsonArray<AnalyticsTweet['media'][number]>(row.media),
  };
}

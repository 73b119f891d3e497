import type { AnalyticsTweet } from '../../analytics/index.js';
import type { TweetCountsRow } from './analytics.repository.js';

/**
 * A tweet as the summary and the daily series read it: time, counts and whether it is a
 * retweet. Text, entities and media stay empty, so no other block may be computed from it.
 */
export function countsOnlyTweet(row: TweetCountsRow): AnalyticsTweet {
  let references: unknown = [];
  try {
    references = row.referenced_types === '[]' ? [] : JSON.parse(row.referenced_types);
  } catch {
    // Rows are written by us; an unreadable list counts as none, as parseTweetRow reads it.
  }
  const kinds = Array.isArray(references) ? references : [];
  return {
    id: row.tweet_id,
    text: '',
    createdAt: Date.parse(row.created_at),
    lang: null,
    likes: row.like_count,
    retweets: row.retweet_count,
    replies: row.reply_count,
    quotes: row.quote_count,
    impressions: null,
    conversationId: null,
    inReplyToUserId: null,
    isRetweet: kinds.includes('retweeted'),
    isQuote: kinds.includes('quoted'),
    isReply: kinds.includes('replied_to'),
    hashtags: [],
    urls: [],
    media: [],
  };
}

import type { AnalyticsTweet } from '../../analytics/index.js';
import { storedTime, tweetKind } from '../tweets/stored-tweet.js';
import type { TweetCountsRow } from './analytics.repository.js';

/**
 * A tweet as the summary and the daily series read it: time, counts and whether it is a
 * retweet. Text, entities and media stay empty, so no other block may be computed from it.
 */
export function countsOnlyTweet(row: TweetCountsRow): AnalyticsTweet {
  const kind = tweetKind(row.referenced_types);
  return {
    id: row.tweet_id,
    text: '',
    createdAt: storedTime(row.created_at),
    lang: null,
    likes: row.like_count,
    retweets: row.retweet_count,
    replies: row.reply_count,
    quotes: row.quote_count,
    impressions: null,
    conversationId: null,
    inReplyToUserId: null,
    isRetweet: kind.isRetweet,
    isQuote: kind.isQuote,
    isReply: kind.isReply,
    hashtags: [],
    urls: [],
    media: [],
  };
}

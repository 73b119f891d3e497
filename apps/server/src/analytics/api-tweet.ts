import type { Tweet } from '@perch/shared';
import { postUrl } from '../domain/x-urls.js';
import type { AnalyticsTweet } from './types.js';

/**
 * The API's tweet object for an analytics tweet: the same object `toTweet` builds from the
 * stored row (times are stored as `toISOString()` text, so formatting the epoch ms gives the
 * stored `created_at` back).
 */
export function toApiTweet(tweet: AnalyticsTweet, username: string): Tweet {
  return {
    id: tweet.id,
    text: tweet.text ?? '',
    created_at: new Date(tweet.createdAt).toISOString(),
    url: postUrl(username, tweet.id),
    like_count: tweet.likes,
    retweet_count: tweet.retweets,
    reply_count: tweet.replies,
    quote_count: tweet.quotes,
    impression_count: tweet.impressions,
    lang: tweet.lang,
    is_retweet: tweet.isRetweet,
    is_quote: tweet.isQuote,
    is_reply: tweet.isReply,
    has_photo: tweet.media.some((item) => item.type === 'photo'),
    has_video: tweet.media.some((item) => item.type === 'video' || item.type === 'animated_gif'),
    media_urls: tweet.media.flatMap((item) => {
      const url = item.url ?? item.previewUrl;
      return url ? [url] : [];
    }),
    media: tweet.media.map((item) => ({
      type: item.type,
      url: item.url,
      preview_url: item.previewUrl,
    })),
    hashtags: [...tweet.hashtags],
    urls: [...tweet.urls],
    conversation_id: tweet.conversationId,
    in_reply_to_user_id: tweet.inReplyToUserId,
  };
}

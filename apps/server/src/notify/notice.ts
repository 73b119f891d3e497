import type { MediaType } from '../domain/tweet-source.js';
import type { TweetRow } from '../db/types.js';
import { postUrl } from '../domain/x-urls.js';
import type { TweetNotice } from './types.js';

interface StoredMedia {
  type?: MediaType;
  url?: string | null;
  previewUrl?: string | null;
}

function storedMedia(text: string): StoredMedia[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value)
      ? value.filter((item): item is StoredMedia => typeof item === 'object' && item !== null)
      : [];
  } catch {
    return [];
  }
}

/** A stored tweet of a handle as a notification shows it (read at send time: fresh metrics). */
export function toTweetNotice(
  tweet: TweetRow,
  handle: { username: string; display_name: string | null },
): TweetNotice {
  const media = storedMedia(tweet.media);
  const photoUrls = media.flatMap((item) =>
    item.type === 'photo' && typeof item.url === 'string' && item.url !== '' ? [item.url] : [],
  );
  const moving = media.find(
    (item) =>
      (item.type === 'video' || item.type === 'animated_gif') &&
      typeof item.previewUrl === 'string',
  );
  return {
    handle: handle.username,
    authorName: handle.display_name,
    tweetId: tweet.tweet_id,
    text: tweet.text,
    url: postUrl(handle.username, tweet.tweet_id),
    createdAt: tweet.created_at,
    likes: tweet.like_count,
    retweets: tweet.retweet_count,
    replies: tweet.reply_count,
    quotes: tweet.quote_count,
    photoUrls,
    previewUrl: moving?.previewUrl ?? null,
  };
}

/**
 * What X API v2 sends: only the fields the x-api source reads, all optional because X omits what
 * it likes; the fields and expansions it asks for (X's id rules: ../x-ids.ts).
 */

export const USER_FIELDS = 'public_metrics,protected,created_at,name';
export const TWEET_FIELDS =
  'created_at,lang,public_metrics,conversation_id,in_reply_to_user_id,referenced_tweets,entities,attachments,note_tweet,author_id';
/** Media, and the post a retweet shares with its author (for its full text). */
export const TWEET_EXPANSIONS =
  'attachments.media_keys,referenced_tweets.id,referenced_tweets.id.author_id';
export const TWEET_USER_FIELDS = 'username';
export const MEDIA_FIELDS = 'type,url,preview_image_url';

export interface WireProblem {
  type?: string;
  title?: string;
  detail?: string;
  status?: number;
  message?: string;
  /** v1.1-style errors: 88 is "Rate limit exceeded". */
  code?: number;
  value?: string;
  resource_id?: string;
}
export interface WireUser {
  id: string;
  username: string;
  name?: string;
  protected?: boolean;
  public_metrics?: {
    followers_count?: number;
    following_count?: number;
    tweet_count?: number;
    like_count?: number;
  };
}
export interface WireEntities {
  hashtags?: { tag: string }[];
  urls?: { expanded_url?: string; url?: string; media_key?: string }[];
}
export interface WireTweet {
  id: string;
  text: string;
  author_id?: string;
  created_at?: string;
  lang?: string;
  conversation_id?: string;
  in_reply_to_user_id?: string;
  public_metrics?: {
    like_count?: number;
    retweet_count?: number;
    reply_count?: number;
    quote_count?: number;
    impression_count?: number;
  };
  referenced_tweets?: { type: string; id: string }[];
  entities?: WireEntities;
  /** A long post's whole text (`text` then holds only its start). */
  note_tweet?: { text?: string; entities?: WireEntities };
  attachments?: { media_keys?: string[] };
}
export interface WireMedia {
  media_key: string;
  type: string;
  url?: string;
  preview_image_url?: string;
}
export interface WireBody<T> {
  data?: T;
  errors?: WireProblem[];
  includes?: { media?: WireMedia[]; tweets?: WireTweet[]; users?: WireUser[] };
  meta?: { next_token?: string; result_count?: number };
}

/** A response body as JSON; anything else (an HTML error page, nothing) reads as `{}`. */
export function parseBody<T>(text: string): WireBody<T> & WireProblem {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as WireBody<T>) : {};
  } catch {
    return {};
  }
}

/**
 * X API v2 posts and users as Perch's SourceTweet and SourceProfile (pure functions).
 *
 * Text: a long post's `text` is truncated by X, and so is a retweet's; the full text comes from
 * `note_tweet` and from the retweeted post in `includes.tweets`.
 */
import type {
  MediaType,
  ReferenceType,
  SourceMedia,
  SourceProfile,
  SourceTweet,
} from '../../domain/tweet-source.js';
import type { WireBody, WireEntities, WireMedia, WireTweet, WireUser } from './x-api-wire.js';

/** The includes of a response, by key. */
export interface Includes {
  media: Map<string, WireMedia>;
  tweets: Map<string, WireTweet>;
  users: Map<string, WireUser>;
}

const REFERENCE_TYPES: readonly string[] = ['retweeted', 'quoted', 'replied_to'];
const MEDIA_TYPES: readonly string[] = ['photo', 'video', 'animated_gif'];

/**
 * X sends tweet text with `&`, `<` and `>` escaped as HTML entities (and nothing else). Perch
 * keeps the text as written, so it is unescaped once here; `&amp;` last, so a typed "&lt;"
 * (sent as "&amp;lt;") stays "&lt;".
 */
export function unescapeXText(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

/** A post's whole text: the note of a long post (escaped like `text`), else `text`. */
function fullText(raw: WireTweet): string {
  return unescapeXText(raw.note_tweet?.text ?? raw.text);
}

/** The entities of the whole text: `entities` only cover the truncated `text` of a long post. */
function fullEntities(raw: WireTweet): WireEntities {
  return (raw.note_tweet?.text !== undefined ? raw.note_tweet.entities : raw.entities) ?? {};
}

/**
 * The post a retweet shares and its author's username, when X included them. The username
 * falls back to the one X wrote in the truncated 'RT @name: ' text.
 */
function sharedPost(
  raw: WireTweet,
  includes: Includes,
): { post: WireTweet; username: string } | null {
  const ref = raw.referenced_tweets?.find((r) => r.type === 'retweeted');
  const post = ref ? includes.tweets.get(ref.id) : undefined;
  if (!post) return null;
  const author = post.author_id ? includes.users.get(post.author_id) : undefined;
  const username = author?.username ?? /^RT @([A-Za-z0-9_]{1,15}):/.exec(raw.text)?.[1];
  return username ? { post, username } : null;
}

/** The photos, videos and GIFs attached to a post that X included. */
function attachedMedia(raw: WireTweet, includes: Includes): SourceMedia[] {
  const media: SourceMedia[] = [];
  for (const key of raw.attachments?.media_keys ?? []) {
    const item = includes.media.get(key);
    if (!item || !MEDIA_TYPES.includes(item.type)) continue;
    media.push({
      type: item.type as MediaType,
      url: item.url ?? null,
      previewUrl: item.preview_image_url ?? null,
    });
  }
  return media;
}

/** The links of a text's entities. */
function linksOf(entities: WireEntities): string[] {
  // Attached media also appear as t.co url entities carrying a media_key: those are not links.
  return (entities.urls ?? [])
    .filter((u) => u.media_key === undefined)
    .map((u) => u.expanded_url ?? u.url)
    .filter((u): u is string => typeof u === 'string');
}

/**
 * Maps a wire post. A retweet's text is 'RT @author: ' and the whole text of the post it shares,
 * whose hashtags and links it also takes (they are the ones in that text).
 */
export function toTweet(raw: WireTweet, includes: Includes): SourceTweet {
  const metrics = raw.public_metrics ?? {};
  const shared = sharedPost(raw, includes);
  const text = shared ? `RT @${shared.username}: ${fullText(shared.post)}` : fullText(raw);
  const entities = fullEntities(shared?.post ?? raw);
  return {
    id: raw.id,
    text,
    createdAt: raw.created_at ?? new Date(0).toISOString(),
    lang: raw.lang ?? null,
    likeCount: metrics.like_count ?? 0,
    retweetCount: metrics.retweet_count ?? 0,
    replyCount: metrics.reply_count ?? 0,
    quoteCount: metrics.quote_count ?? 0,
    impressionCount: metrics.impression_count ?? null,
    conversationId: raw.conversation_id ?? null,
    inReplyToUserId: raw.in_reply_to_user_id ?? null,
    referencedTypes: (raw.referenced_tweets ?? [])
      .map((ref) => ref.type)
      .filter((type): type is ReferenceType => REFERENCE_TYPES.includes(type)),
    hashtags: (entities.hashtags ?? []).map((h) => h.tag),
    urls: linksOf(entities),
    media: attachedMedia(raw, includes),
  };
}

export function toProfile(user: WireUser): SourceProfile {
  const metrics = user.public_metrics ?? {};
  return {
    xUserId: user.id,
    username: user.username,
    name: user.name ?? user.username,
    followersCount: metrics.followers_count ?? 0,
    followingCount: metrics.following_count ?? 0,
    tweetCount: metrics.tweet_count ?? 0,
    likeCount: metrics.like_count ?? null,
    protected: user.protected === true,
  };
}

export function includesOf(body: WireBody<unknown>): Includes {
  return {
    media: new Map((body.includes?.media ?? []).map((m) => [m.media_key, m])),
    tweets: new Map((body.includes?.tweets ?? []).map((t) => [t.id, t])),
    users: new Map((body.includes?.users ?? []).map((u) => [u.id, u])),
  };
}

/** The posts of a tweet response as SourceTweets, with their included media and retweets. */
export function tweetsOf(body: WireBody<WireTweet[]>): SourceTweet[] {
  const includes = includesOf(body);
  return (body.data ?? []).map((raw) => toTweet(raw, includes));
}

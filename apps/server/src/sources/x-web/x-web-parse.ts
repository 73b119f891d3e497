/**
 * X's private web GraphQL answers (UserByScreenName, UsersByRestIds, UserTweets,
 * UserTweetsAndReplies, TweetResultsByRestIds) read as SourceProfile and SourceTweet, on the shapes
 * X sends in late 2026. Pure functions, no I/O.
 *
 * Users
 * - Since mid 2026 a User comes without `legacy`: names in `core`, counts in
 *   `relationship_counts`, `tweet_counts` and `action_counts`, the picture in `avatar`, the lock
 *   in `privacy`, badges in `verification`. `legacy` is read only where the new place is missing,
 *   and an empty legacy value ('' or null) counts as missing.
 * - A UserUnavailable, or a result without rest_id, is no profile; `unavailableKind` says why.
 *
 * Posts
 * - A post's fields are read from `legacy`, or from the Tweet itself when X sends them there
 *   (X has been seen to send `legacy: null` with the fields moved up); the Tweet's own value wins.
 * - TweetWithVisibilityResults is unwrapped. TweetTombstone, TweetUnavailable and any result
 *   without an id and fields are skipped, never an error.
 * - Text: a long post's whole note text; a retweet's 'RT @author: ' and the whole shared text,
 *   with the shared post's entities and media. HTML escapes are undone once, &amp; last.
 *
 * Timeline pages: see x-web-parse-timeline.ts for where posts, pins, ads and cursors stand.
 *
 * Errors
 * - A 200 may carry `errors` beside usable `data` (a partial answer) or instead of it. Only the
 *   second is a failure, and it says nothing about whether the user or post exists.
 */
import type {
  MediaType,
  SourceMedia,
  SourceProfile,
  SourceTweet,
} from '../../domain/tweet-source.js';
import {
  readTimelinePage,
  type TimelinePageOf,
  type WireTimeline,
} from './x-web-parse-timeline.js';

// Wire shapes: only the fields read here. X may send null for any object, so the reads are guarded.

/** The pre-2026 user fields; in 2026 answers `legacy` is absent or null. */
export interface WireUserLegacy {
  screen_name?: string | null;
  name?: string | null;
  followers_count?: number | null;
  friends_count?: number | null;
  statuses_count?: number | null;
  favourites_count?: number | null;
  profile_image_url_https?: string | null;
  protected?: boolean | null;
  verified?: boolean | null;
  verified_type?: string | null;
}

export interface WireUserResult {
  /** 'User' or 'UserUnavailable'. */
  __typename?: string;
  rest_id?: string;
  /** UserUnavailable: 'Suspended', 'Protected', 'NoReason', ... */
  reason?: string;
  unavailable_reason?: string;
  message?: string;
  core?: { screen_name?: string | null; name?: string | null } | null;
  avatar?: { image_url?: string | null } | null;
  privacy?: { protected?: boolean | null } | null;
  is_blue_verified?: boolean | null;
  verification?: {
    verified?: boolean | null;
    is_blue_verified?: boolean | null;
    verified_type?: string | null;
  } | null;
  relationship_counts?: { followers?: number | null; following?: number | null } | null;
  tweet_counts?: { tweets?: number | null; media_tweets?: number | null } | null;
  action_counts?: { favorites_count?: number | null } | null;
  legacy?: WireUserLegacy | null;
}

export interface WireMedia {
  /** 'photo', 'video' or 'animated_gif'. */
  type?: string;
  media_url_https?: string | null;
}

export interface WireEntities {
  hashtags?: { text?: string }[] | null;
  urls?: { expanded_url?: string | null; url?: string | null }[] | null;
  media?: WireMedia[] | null;
}

/** A post's own fields, found in `legacy` or on the Tweet itself. */
export interface WireTweetFields {
  full_text?: string | null;
  created_at?: string | null;
  lang?: string | null;
  favorite_count?: number | null;
  retweet_count?: number | null;
  reply_count?: number | null;
  quote_count?: number | null;
  conversation_id_str?: string | null;
  in_reply_to_user_id_str?: string | null;
  in_reply_to_status_id_str?: string | null;
  is_quote_status?: boolean | null;
  quoted_status_id_str?: string | null;
  quoted_status_result?: { result?: WireTweetResult | null } | null;
  retweeted_status_id_str?: string | null;
  retweeted_status_result?: { result?: WireTweetResult | null } | null;
  user_id_str?: string | null;
  entities?: WireEntities | null;
  extended_entities?: { media?: WireMedia[] | null } | null;
}

export interface WireTweetResult extends WireTweetFields {
  /** 'Tweet', 'TweetWithVisibilityResults', 'TweetTombstone', 'TweetUnavailable', ... */
  __typename?: string;
  rest_id?: string;
  /** The post inside TweetWithVisibilityResults. */
  tweet?: WireTweetResult | null;
  core?: { user_results?: { result?: WireUserResult | null } | null } | null;
  views?: { count?: string | null; state?: string } | null;
  note_tweet?: {
    note_tweet_results?: { result?: { text?: string; entity_set?: WireEntities } | null } | null;
  } | null;
  legacy?: WireTweetFields | null;
}

export interface WireError {
  code?: number | string;
  message?: string;
  extensions?: { code?: number | string; name?: string } | null;
}

export interface WireBody {
  data?: {
    user?: {
      result?:
        | (WireUserResult & {
            /** 2026 answers; `timeline_v2` before. */
            timeline?: WireTimeline<WireTweetResult> | null;
            timeline_v2?: WireTimeline<WireTweetResult> | null;
          })
        | null;
    } | null;
    users?: { result?: WireUserResult | null }[] | null;
    tweetResult?: { result?: WireTweetResult | null }[] | null;
  } | null;
  errors?: WireError[] | null;
}

/** Why X cannot return a user. */
export type UnavailableKind = 'not_found' | 'suspended' | 'protected';

/** The errors of an answer, for logs and decisions. */
export interface GraphqlErrors {
  /** Each code once, in the order X gave them. */
  codes: number[];
  /** "(code) text; ..." with repeats left out; "" when there are no errors. */
  message: string;
}

/** One page of UserTweets or UserTweetsAndReplies (see x-web-parse-timeline.ts). */
export type WebTimelinePage = TimelinePageOf<WireTweetResult>;

/** Verification types that show a badge besides the blue one. */
const BADGE_TYPES = new Set(['Business', 'Government']);
const MEDIA_TYPES = new Set<string>(['photo', 'video', 'animated_gif']);

/** X escapes &, < and > in post text (as v1.1 did): undone once, &amp; last. */
export function unescapeText(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

/** The first non-empty string. */
function textOf(...values: unknown[]): string | null {
  for (const value of values) if (typeof value === 'string' && value !== '') return value;
  return null;
}

/** The first count given (a whole number, or its digits as a string); '' and null are missing. */
function countOf(...values: unknown[]): number | null {
  for (const value of values) {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
    if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  }
  return null;
}

function flagOf(...values: unknown[]): boolean | null {
  for (const value of values) if (typeof value === 'boolean') return value;
  return null;
}

/** An error code, wherever X put it: a number, or digits in a string. */
function codeOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,9}$/.test(value)) return Number(value);
  return null;
}

function screenName(user: WireUserResult | null | undefined): string | null {
  return textOf(user?.core?.screen_name, user?.legacy?.screen_name);
}

function isVerified(user: WireUserResult): boolean {
  const badge = user.verification;
  const legacy = user.legacy;
  const type = textOf(badge?.verified_type, legacy?.verified_type);
  return (
    badge?.verified === true ||
    user.is_blue_verified === true ||
    badge?.is_blue_verified === true ||
    (type !== null && BADGE_TYPES.has(type)) ||
    legacy?.verified === true
  );
}

/** A User result as a profile; null for UserUnavailable or a result without rest_id. */
export function toSourceProfile(user: WireUserResult | null | undefined): SourceProfile | null {
  if (!user?.rest_id) return null;
  if (user.__typename !== undefined && user.__typename !== 'User') return null;
  const legacy = user.legacy;
  const username = screenName(user) ?? '';
  return {
    xUserId: user.rest_id,
    username,
    name: textOf(user.core?.name, legacy?.name) ?? username,
    followersCount: countOf(user.relationship_counts?.followers, legacy?.followers_count) ?? 0,
    followingCount: countOf(user.relationship_counts?.following, legacy?.friends_count) ?? 0,
    tweetCount: countOf(user.tweet_counts?.tweets, legacy?.statuses_count) ?? 0,
    likeCount: countOf(user.action_counts?.favorites_count, legacy?.favourites_count),
    protected: flagOf(user.privacy?.protected, legacy?.protected) ?? false,
    avatarUrl: textOf(user.avatar?.image_url, legacy?.profile_image_url_https),
    verified: isVerified(user),
  };
}

/**
 * Why a user cannot be returned, from UserUnavailable's reason, unavailable_reason or message;
 * no result at all, or no reason given, is 'not_found'.
 */
export function unavailableKind(user: WireUserResult | null | undefined): UnavailableKind {
  const words = [user?.reason, user?.unavailable_reason, user?.message]
    .filter((word): word is string => typeof word === 'string')
    .join(' ')
    .toLowerCase();
  if (words.includes('suspend')) return 'suspended';
  if (words.includes('protect')) return 'protected';
  return 'not_found';
}

function unwrap(result: WireTweetResult): WireTweetResult {
  return result.__typename === 'TweetWithVisibilityResults' && result.tweet ? result.tweet : result;
}

/** A post's fields: the Tweet's own where given, else its legacy's. */
function fieldsOf(tweet: WireTweetResult): WireTweetFields {
  const fields: Record<string, unknown> = { ...(tweet.legacy ?? {}) };
  for (const [key, value] of Object.entries(tweet)) {
    if (key !== 'legacy' && value !== null && value !== undefined) fields[key] = value;
  }
  return fields as WireTweetFields;
}

/**
 * A readable post: a Tweet, or the Tweet inside TweetWithVisibilityResults. Null for tombstones,
 * unavailable posts and anything without an id and the post's fields.
 */
export function tweetOf(result: WireTweetResult | null | undefined): WireTweetResult | null {
  if (!result) return null;
  if (result.__typename === 'TweetWithVisibilityResults') return tweetOf(result.tweet);
  if (result.__typename === 'TweetTombstone' || result.__typename === 'TweetUnavailable') {
    return null;
  }
  if (!result.rest_id) return null;
  const fields = fieldsOf(result);
  return typeof fields.full_text === 'string' || typeof fields.created_at === 'string'
    ? result
    : null;
}

/** The author's user id: the embedded user's rest_id, else user_id_str; undefined if neither. */
export function authorIdOf(tweet: WireTweetResult): string | undefined {
  const post = unwrap(tweet);
  return textOf(post.core?.user_results?.result?.rest_id, fieldsOf(post).user_id_str) ?? undefined;
}

/** The post's whole text and the entities that go with it (a long post's note, else full_text). */
function ownText(tweet: WireTweetResult): { text: string; entities: WireEntities } {
  const note = tweet.note_tweet?.note_tweet_results?.result;
  if (typeof note?.text === 'string') {
    return { text: unescapeText(note.text), entities: note.entity_set ?? {} };
  }
  const fields = fieldsOf(tweet);
  return { text: unescapeText(fields.full_text ?? ''), entities: fields.entities ?? {} };
}

/** Photos with their image, videos and GIFs with their still; other kinds are left out. */
function mediaOf(fields: WireTweetFields): SourceMedia[] {
  const media: SourceMedia[] = [];
  for (const item of fields.extended_entities?.media ?? fields.entities?.media ?? []) {
    if (!item?.type || !MEDIA_TYPES.has(item.type)) continue;
    const still = textOf(item.media_url_https);
    media.push(
      item.type === 'photo'
        ? { type: 'photo', url: still, previewUrl: null }
        : { type: item.type as MediaType, url: null, previewUrl: still },
    );
  }
  return media;
}

/**
 * A readable post (see tweetOf) as a SourceTweet, by the rules x-api follows: a long post's whole
 * text, a retweet's whole shared text with the shared post's entities and media.
 */
export function toSourceTweet(result: WireTweetResult): SourceTweet {
  const tweet = unwrap(result);
  const fields = fieldsOf(tweet);
  const sharedResult = fields.retweeted_status_result?.result;
  const shared = tweetOf(sharedResult);
  const sharedAuthor = shared ? screenName(shared.core?.user_results?.result) : null;
  const own = ownText(tweet);
  const body = shared && sharedAuthor ? ownText(shared) : null;
  const entities = body?.entities ?? own.entities;
  // A retweet of a post that is gone still is a retweet; its text is X's shortened one.
  const isRetweet = Boolean(sharedResult || fields.retweeted_status_id_str);
  const isQuote = Boolean(
    fields.quoted_status_result?.result || fields.is_quote_status || fields.quoted_status_id_str,
  );
  const referencedTypes: SourceTweet['referencedTypes'] = [];
  if (isRetweet) referencedTypes.push('retweeted');
  else if (isQuote) referencedTypes.push('quoted');
  if (fields.in_reply_to_status_id_str) referencedTypes.push('replied_to');
  const createdAt = fields.created_at ? Date.parse(fields.created_at) : Number.NaN;
  return {
    id: tweet.rest_id ?? '',
    text: body ? `RT @${sharedAuthor}: ${body.text}` : own.text,
    createdAt: new Date(Number.isNaN(createdAt) ? 0 : createdAt).toISOString(),
    lang: textOf(fields.lang),
    likeCount: countOf(fields.favorite_count) ?? 0,
    retweetCount: countOf(fields.retweet_count) ?? 0,
    replyCount: countOf(fields.reply_count) ?? 0,
    quoteCount: countOf(fields.quote_count) ?? 0,
    impressionCount: countOf(tweet.views?.count),
    conversationId: textOf(fields.conversation_id_str),
    inReplyToUserId: textOf(fields.in_reply_to_user_id_str),
    referencedTypes,
    hashtags: (entities.hashtags ?? [])
      .map((tag) => tag?.text)
      .filter((tag): tag is string => typeof tag === 'string'),
    urls: (entities.urls ?? [])
      .map((link) => textOf(link?.expanded_url, link?.url))
      .filter((link): link is string => link !== null),
    media: mediaOf(shared ? fieldsOf(shared) : fields),
  };
}

/**
 * A UserTweets or UserTweetsAndReplies page (`data.user.result.timeline`, or `timeline_v2`):
 * readable posts in order and each once, the pinned post apart, promoted posts counted and left
 * out, tombstones skipped.
 */
export function timelinePage(body: WireBody): WebTimelinePage {
  const user = body.data?.user?.result;
  return readTimelinePage(user?.timeline?.timeline ? user.timeline : user?.timeline_v2, tweetOf);
}

/**
 * The answer's errors: each code once (from `code`, else `extensions.code`) and a message of
 * "(code) text" parts, repeats left out. A code X did not give shows as "?".
 */
export function graphqlErrors(body: WireBody | null | undefined): GraphqlErrors {
  const errors: unknown[] = Array.isArray(body?.errors) ? body.errors : [];
  const codes: number[] = [];
  const parts: string[] = [];
  for (const error of errors) {
    if (typeof error !== 'object' || error === null) continue;
    const { code, message, extensions } = error as WireError;
    const number = codeOf(code) ?? codeOf(extensions?.code);
    if (number !== null && !codes.includes(number)) codes.push(number);
    const part = `(${number ?? '?'}) ${typeof message === 'string' ? message : ''}`.trim();
    if (!parts.includes(part)) parts.push(part);
  }
  return { codes, message: parts.join('; ') };
}

/**
 * True when `data` is an object with at least one non-null value: the answer is usable even if
 * it also carries errors. False for `data: {}`, `data: { user: null }` or no data.
 */
export function hasData(body: WireBody | null | undefined): boolean {
  const data: unknown = body?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  return Object.values(data).some((value) => value !== null && value !== undefined);
}

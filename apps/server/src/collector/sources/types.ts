/**
 * A tweet source (ARCHITECTURE.md, Tweet sources): looks up a profile and pages through a
 * user's timeline between two instants, newest first, with a cursor. `demo` and `x-api`
 * implement it and pass one contract suite.
 */

export interface SourceProfile {
  /** The X user id (decimal string). */
  xUserId: string;
  username: string;
  name: string;
  followersCount: number;
  followingCount: number;
  tweetCount: number;
  likeCount: number | null;
  protected: boolean;
}

export type MediaType = 'photo' | 'video' | 'animated_gif';

export interface SourceMedia {
  type: MediaType;
  /** Full-size image (photos) or null. */
  url: string | null;
  /** Still image for videos and GIFs, or null. */
  previewUrl: string | null;
}

export type ReferenceType = 'retweeted' | 'quoted' | 'replied_to';

export interface SourceTweet {
  /** X tweet id (decimal string; compare as BigInt, not as text). */
  id: string;
  text: string;
  /** ISO-8601 UTC. */
  createdAt: string;
  lang: string | null;
  likeCount: number;
  retweetCount: number;
  replyCount: number;
  quoteCount: number;
  impressionCount: number | null;
  conversationId: string | null;
  inReplyToUserId: string | null;
  referencedTypes: ReferenceType[];
  hashtags: string[];
  urls: string[];
  media: SourceMedia[];
}

export interface TimelineQuery {
  xUserId: string;
  /** Oldest instant wanted (inclusive), ISO-8601. */
  startTime?: string;
  /** Newest instant wanted (exclusive), ISO-8601. */
  endTime?: string;
  /** Only tweets with an id greater than this. */
  sinceId?: string;
  /** Continue a previous page. */
  cursor?: string;
  /** 5-100, default 100. */
  maxResults?: number;
}

export interface TimelinePage {
  /** Newest first. */
  tweets: SourceTweet[];
  /** Pass as `cursor` for the next (older) page; null when there is none. */
  nextCursor: string | null;
}

/** What a source can say about its request budget (shown to admins). */
export interface RateBudget {
  limit: number | null;
  remaining: number | null;
  /** ISO-8601 time the window resets. */
  resetAt: string | null;
}

export type SourceErrorKind =
  /** No such account. */
  | 'not_found'
  /** Suspended account. */
  | 'suspended'
  /** Protected account: its tweets cannot be read. */
  | 'protected'
  /** The credentials were refused (401/402/403): needs an operator, do not retry hot. */
  | 'auth'
  /** Rate limited: retry after `retryAfterMs`. */
  | 'rate_limited'
  /** 5xx or network trouble: retry with backoff. */
  | 'unavailable';

export class SourceError extends Error {
  constructor(
    readonly kind: SourceErrorKind,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

/** A verification the collector account must pass before collection may go on. */
export interface AccountChallenge {
  /** What kind of proof is asked for, e.g. 'email_code'. */
  type: string;
  /** A sentence for the super admin: what was sent where, and what to do. */
  details: string;
}

/**
 * The session of the account a source collects with, for sources that sign in as an account
 * that X may challenge. Sources that use an app-only token (x-api) have none.
 */
export interface SourceAccount {
  /** Signs in when collection starts: the challenge the account is asked, or null. */
  challengeOnStart(): Promise<AccountChallenge | null>;
  /** Tries a verification code; true when the account accepted it. */
  verify(code: string): Promise<boolean>;
}

export interface TweetSource {
  readonly name: 'demo' | 'x-api';
  /** The collector account's session, when the source signs in as one (see SourceAccount). */
  readonly account?: SourceAccount;
  /** Throws SourceError('not_found' | 'suspended' | ...) */
  lookupUser(username: string, signal?: AbortSignal): Promise<SourceProfile>;
  timeline(query: TimelineQuery, signal?: AbortSignal): Promise<TimelinePage>;
  /** Current metrics of up to 100 tweets by id (for metric snapshots). Missing ids are left out. */
  tweetsByIds(ids: string[], signal?: AbortSignal): Promise<SourceTweet[]>;
  rateBudget(): RateBudget;
}

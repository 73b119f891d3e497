/**
 * A tweet source (docs/spec-notes.md, Tweet sources): looks up a profile and pages through a
 * user's timeline between two instants, newest first, with a cursor. `demo`, `x-api` and
 * `x-web` implement it and pass one contract suite.
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
  /** The profile picture's address, when the source tells it. */
  avatarUrl?: string | null;
  /** X shows a verification badge (blue, business or government), when the source tells it. */
  verified?: boolean;
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
  /**
   * The full text: a long post's whole note text, a retweet's 'RT @author: ' and the whole
   * text of the post it shares (X truncates both in `text`).
   */
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

/** One rate-limited endpoint of the source, as its last response told. */
export interface EndpointBudget extends RateBudget {
  endpoint: string;
}

/** Every budget the source knows of: per endpoint (15-minute windows) and the app's 24 hours. */
export interface RateStatus {
  endpoints: EndpointBudget[];
  /** `x-app-limit-24hour-*`, when X sends them (some plans). */
  appDay: RateBudget | null;
}

/** Profiles looked up by id: those X returned, and the ids it could not return (with why). */
export interface UsersById {
  profiles: SourceProfile[];
  missing: { xUserId: string; kind: 'not_found' | 'suspended' | 'protected' }[];
}

/**
 * A resource X bills (pay-per-use): a post or a user in a response. `ownerXUserId` is the X
 * user the read was for (the timeline's user, a post's author), so the cost can be put on the
 * handle; null when unknown.
 */
export interface BilledRead {
  kind: 'post' | 'user';
  id: string;
  ownerXUserId: string | null;
}

/** Told of every billable resource a source's responses carried (the cost meter). */
export type BilledReadsListener = (reads: BilledRead[]) => void | Promise<void>;

export type SourceErrorKind =
  /** No such account. */
  | 'not_found'
  /** Suspended account. */
  | 'suspended'
  /** Protected account: its tweets cannot be read. */
  | 'protected'
  /** The credentials were refused (401/403): needs an operator, probe rarely. */
  | 'auth'
  /** The X account's credits are depleted (402): probe rarely until credits are added. */
  | 'credits'
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
  readonly name: 'demo' | 'x-api' | 'x-web';
  /** The collector account's session, when the source signs in as one (see SourceAccount). */
  readonly account?: SourceAccount;
  /** Throws SourceError('not_found' | 'suspended' | ...) */
  lookupUser(username: string, signal?: AbortSignal): Promise<SourceProfile>;
  timeline(query: TimelineQuery, signal?: AbortSignal): Promise<TimelinePage>;
  /**
   * Profiles of up to 100 users by id in one request (profile refresh): follows renamed
   * accounts. Ids X cannot return come back in `missing`.
   */
  usersByIds(ids: string[], signal?: AbortSignal): Promise<UsersById>;
  /** Current metrics of up to 100 tweets by id (for metric snapshots). Missing ids are left out. */
  tweetsByIds(ids: string[], signal?: AbortSignal): Promise<SourceTweet[]>;
  /** The timeline endpoint's budget (kept for the admin processes view). */
  rateBudget(): RateBudget;
  /** Every budget known (pacing, the admin usage card, /metrics). */
  rateStatus(): RateStatus;
  /**
   * How many of the most recent posts the timeline reaches (X: 3,200); null: no limit. A
   * backfill that ends early after this many posts was cut by it.
   */
  readonly timelineDepth: number | null;
}

import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Role } from '@perch/shared';
import type { HandleStatus } from '../domain/collector-events.js';

export type { HandleStatus };

/**
 * A boolean column: `boolean` on Postgres, 0/1 on SQLite. Written as a boolean (the SQLite
 * SQLite statement adapter binds it as 0/1); read back through `Boolean()` in the repositories.
 */
export type Bool = ColumnType<boolean | number, boolean, boolean>;
/** A boolean column with a default: may be left out on insert. */
export type GeneratedBool = ColumnType<boolean | number, boolean | undefined, boolean>;

/** Times are ISO-8601 UTC strings in both dialects (see docs/decisions.md). */
export type Timestamp = string;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  email: string;
  password_hash: string;
  is_admin: Bool;
  is_super_admin: Bool;
  /** JSON object as text. */
  profile: string | null;
  created_at: Timestamp;
  last_login_at: Timestamp | null;
  /** Sealed TOTP secret; null while two-factor sign-in is off. */
  totp_secret: ColumnType<string | null, string | null | undefined, string | null>;
  totp_enabled_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
  totp_pending_secret: ColumnType<string | null, string | null | undefined, string | null>;
  totp_last_step: ColumnType<number | null, number | null | undefined, number | null>;
  /** JSON object as text. */
  security_settings: ColumnType<string, string | undefined, string>;
}

export interface SessionsTable {
  /** SHA-256 of the cookie value, hex; the raw id is never stored. */
  id: string;
  user_id: number;
  created_at: Timestamp;
  /** Any request or heartbeat of the session, at most once a minute (the admin users list). */
  last_seen_at: Timestamp;
  /**
   * When the session ends: the idle timeout moved by the person's own activity, never past the
   * absolute lifetime from `created_at` (modules/auth/session-lifetime.ts).
   */
  expires_at: Timestamp;
  ip: string | null;
  user_agent: string | null;
  remember_me: Bool;
  revoked_at: Timestamp | null;
  /** When the person last gave their password or a two-factor code on it (step-up). */
  authenticated_at: ColumnType<Timestamp | null, Timestamp | null | undefined, Timestamp | null>;
}

export interface InvitationsTable {
  id: Generated<number>;
  /** SHA-256 (hex) of the code; the code itself is shown once, when made (migration 0019). */
  code_hash: string;
  /**
   * The first-start invitation's code sealed with the secret key (lib/token-cipher.ts), so every
   * start can print it until somebody registers; null for every other invitation.
   */
  code_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  role: Role;
  max_uses: number;
  uses: Generated<number>;
  expires_at: Timestamp | null;
  /** Null for the invitation made at first start or by the CLI. */
  created_by: number | null;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface LoginAttemptsTable {
  id: Generated<number>;
  /** The name typed at sign-in, lower-cased. */
  login: string;
  user_id: number | null;
  ip: string;
  user_agent: string | null;
  success: Bool;
  created_at: Timestamp;
}

/** When the next sign-in attempt of an account (or unknown name) may start; see login-throttle.ts. */
export interface SignInHoldsTable {
  /** `account:<user id>` or `name:<lower-cased name>`. */
  key: string;
  next_attempt_at: Timestamp;
  claimed_until: Timestamp;
}

/** One X account, collected once however many users follow it. */
export interface HandlesTable {
  id: Generated<number>;
  username: string;
  x_user_id: string | null;
  display_name: string | null;
  backfill_status: HandleStatus;
  /** 0-100: share of the backfill window covered. */
  backfill_progress: number;
  /** The largest backfill any follower asked for, in days. */
  backfill_days_covered: number;
  /** Oldest instant the backfill walks back to. */
  backfill_target_start: Timestamp | null;
  /** Newest instant of the backfill window (when the first backfill began). */
  backfill_window_end: Timestamp | null;
  /** Oldest instant the backfill has reached: a resumed backfill continues from here. */
  oldest_covered_at: Timestamp | null;
  newest_tweet_id: string | null;
  initial_backfill_complete: Bool;
  backfill_completed_at: Timestamp | null;
  estimated_completion: Timestamp | null;
  total_tweets_collected: number;
  followers_count: number | null;
  following_count: number | null;
  tweet_count: number | null;
  like_count: number | null;
  last_poll_at: Timestamp | null;
  /** When the scheduler next runs a job for this handle (a poll, or a backfill retry). */
  next_poll_at: Timestamp | null;
  /** Polls in a row that found nothing new (slows polling down). */
  quiet_polls: number;
  last_error: string | null;
  paused: Bool;
  /** Last profile read (batched lookups by id on their own cadence). */
  profile_checked_at: Timestamp | null;
  /** X's 3,200-post timeline limit ended the backfill before its window start. */
  depth_limited: GeneratedBool;
  /** Last manual poll (analytics Refresh) of the handle, whoever asked. */
  manual_poll_at: Timestamp | null;
  /** Bumped whenever tweets, metrics or snapshots of the handle are stored (cache key). */
  data_version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The collector job that holds the handle (`<node id>:<job>`), migration 0011. */
  lease_owner: string | null;
  /** Until when that job holds it, unless renewed; a crashed job's lease runs out. */
  lease_until: Timestamp | null;
  /**
   * Where the next poll continues a walk through more new posts than one poll reads (after a
   * pause); null: it starts at the newest post. Migration 0016.
   */
  catch_up_cursor: string | null;
  /** The newest post that walk has seen: `newest_tweet_id` once it reaches the last one stored. */
  catch_up_newest_id: string | null;
  /** New posts that walk has stored so far. */
  catch_up_found: Generated<number>;
}

/** A user following a handle. */
export interface UserHandlesTable {
  id: Generated<number>;
  user_id: number;
  handle_id: number;
  added_at: Timestamp;
  backfill_days: number;
  telegram_enabled: Bool;
  discord_enabled: Bool;
  /** Notify only about tweets with one of these words or phrases: JSON array (migration 0013). */
  filter_include: Generated<string>;
  /** Never notify about tweets with any of these words or phrases: JSON array. */
  filter_exclude: Generated<string>;
  /** Notify only about tweets with a photo, video or GIF. */
  filter_media_only: GeneratedBool;
}

export interface TweetsTable {
  id: Generated<number>;
  handle_id: number;
  tweet_id: string;
  text: string;
  created_at: Timestamp;
  lang: string | null;
  like_count: number;
  retweet_count: number;
  reply_count: number;
  quote_count: number;
  impression_count: number | null;
  conversation_id: string | null;
  in_reply_to_user_id: string | null;
  /** JSON array of 'retweeted' | 'quoted' | 'replied_to'. */
  referenced_types: string;
  /** JSON array of strings. */
  hashtags: string;
  /** JSON array of strings. */
  urls: string;
  /** JSON array of { type, url, previewUrl }. */
  media: string;
  /** Found by monitoring and not yet fanned out into the notification outbox. */
  fanout_pending: GeneratedBool;
  /** When the metrics are read next (decay schedule after posting); null: never again. */
  metrics_next_at: Timestamp | null;
  first_seen_at: Timestamp;
  updated_at: Timestamp;
}

/** A stored post as read from the database. */
export type TweetRow = Selectable<TweetsTable>;

export interface ProfileSnapshotsTable {
  id: Generated<number>;
  handle_id: number;
  taken_at: Timestamp;
  followers: number;
  following: number;
  tweet_count: number;
  like_count: number | null;
}

/** Stored only when a tweet's metrics changed since the last reading. */
export interface TweetMetricSnapshotsTable {
  id: Generated<number>;
  handle_id: number;
  tweet_id: string;
  taken_at: Timestamp;
  likes: number;
  retweets: number;
  replies: number;
  quotes: number;
  impressions: number | null;
}

/** A user's notification channels and preferences (one row per user, made on first save). */
export interface UserSettingsTable {
  user_id: number;
  telegram_chat_id: string | null;
  discord_user_id: string | null;
  twitter_username: string | null;
  /** Why delivery to the channel stopped for good, or null while it works. */
  telegram_stopped_reason: string | null;
  discord_stopped_reason: string | null;
  /** JSON object (GET/PUT /settings/notifications). */
  notification_preferences: Generated<string>;
  bot_running: GeneratedBool;
  updated_at: Timestamp;
}

export type NotificationChannel = 'telegram' | 'discord';
/** 'filtered': held back by the user's filter of the handle, logged and never sent. */
export type OutboxStatus =
  'pending' | 'sending' | 'sent' | 'failed' | 'cancelled' | 'expired' | 'filtered';

/** One delivery: a tweet of a handle to one user on one channel, sent at most once. */
export interface NotificationOutboxTable {
  id: Generated<number>;
  user_id: number;
  handle_id: number;
  tweet_id: string;
  channel: NotificationChannel;
  status: OutboxStatus;
  attempts: Generated<number>;
  /** Messages of this notification already accepted by the service (a retry sends the rest). */
  parts_sent: Generated<number>;
  next_attempt_at: Timestamp;
  last_error: string | null;
  created_at: Timestamp;
  sent_at: Timestamp | null;
  /** The worker holding a 'sending' row (its lease ends at `next_attempt_at`). */
  claimed_by: string | null;
  /** Rows sent together as one digest: the id of the digest's first row. */
  digest_of: number | null;
}

/** One send per chat at a time across processes: who holds a chat, and until when. */
export interface DeliveryChatLocksTable {
  channel: NotificationChannel;
  user_id: number;
  owner: string;
  lease_until: Timestamp;
}

/** A user's secret for the RSS and JSON feeds (migration 0013). */
export interface FeedTokensTable {
  user_id: number;
  /** SHA-256 hex of the token: how a feed request finds its user. */
  token_hash: string;
  /** The token sealed with the stored-credentials key, so Settings can show the addresses. */
  token_sealed: string;
  created_at: Timestamp;
}

/** A running Perch process (migration 0011): start refuses double work without Redis. */
export interface ClusterNodesTable {
  id: string;
  role: string;
  host: string;
  pid: number;
  /** Whether it runs with REDIS_URL (it shares jobs and limits with other nodes). */
  shared: GeneratedBool;
  started_at: Timestamp;
  seen_at: Timestamp;
}

/** A chat's place in the delivery order (migration 0010). */
export interface DeliveryChatsTable {
  channel: NotificationChannel;
  user_id: number;
  /** When its oldest waiting notice may go; null when nothing waits. */
  due_at: Timestamp | null;
  /** Grows with every write that adds or speeds up work for the chat. */
  version: Generated<number>;
}

export interface TelegramLinkCodesTable {
  /** SHA-256 hex of the one-time code. */
  code_hash: string;
  user_id: number;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

/** A user's X account connected with OAuth 2.0 (tokens encrypted at rest). */
export interface XAccountsTable {
  user_id: number;
  x_user_id: string;
  username: string;
  access_token: string;
  refresh_token: string | null;
  expires_at: Timestamp | null;
  scope: string | null;
  connected_at: Timestamp;
  updated_at: Timestamp;
}

/** A pending OAuth authorization (PKCE verifier), valid for a few minutes. */
export interface OauthStatesTable {
  state: string;
  user_id: number;
  code_verifier: string;
  redirect_uri: string;
  expires_at: Timestamp;
}

export type Severity = 'critical' | 'high' | 'medium' | 'low';

export interface SecurityEventsTable {
  id: Generated<number>;
  user_id: number | null;
  actor_id: number | null;
  event_type: string;
  severity: Severity;
  description: string;
  ip: string | null;
  user_agent: string | null;
  /** JSON object as text. */
  metadata: ColumnType<string, string | undefined, string>;
  created_at: Timestamp;
}

export type ChallengeState = 'IDLE' | 'AWAITING_INPUT' | 'CODE_SUBMITTED';

/** The collector account's verification challenge: one row (id 1) or none (never asked). */
export interface CollectorAccountTable {
  id: number;
  status: ChallengeState;
  challenge_type: string | null;
  challenge_details: string | null;
  last_challenge_at: Timestamp | null;
  submitted_code: string | null;
  updated_at: Timestamp;
}

/** Where an x-web collector account stands (migration 0014). */
export type XWebAccountStatus =
  /** Signed in (or cookies given): used for collection. */
  | 'ACTIVE'
  /** Credentials given, not signed in yet: the source signs in once when it needs the account. */
  | 'NEEDS_LOGIN'
  /** The sign-in waits for a code X emailed (the super admin's verification panel). */
  | 'AWAITING_INPUT'
  /** The sign-in failed: it waits for an admin (no automatic retry). */
  | 'FAILED'
  /** X locked the account (error 326): an admin unlocks it on x.com, then resets it here. */
  | 'LOCKED'
  /** X suspended the account (error 64). */
  | 'SUSPENDED'
  /** The session ended (errors 32/89, 403): new cookies or a new sign-in are needed. */
  | 'EXPIRED';

export interface XWebAccountsTable {
  id: Generated<number>;
  /** Lower case, without the @. */
  username: string;
  auth_method: 'cookies' | 'credentials';
  /** Encrypted JSON: { password, email, totpSecret } or { authToken, ct0 }. */
  secrets: string;
  /** Encrypted JSON of the session's cookies (auth_token, ct0, ...); null until signed in. */
  session: string | null;
  /** Encrypted JSON of a sign-in flow waiting for a code (flow token, guest token, cookies). */
  flow: string | null;
  status: XWebAccountStatus;
  /** Why the account is out (X's words), or null. */
  status_reason: string | null;
  /** The sign-in step waiting for input (e.g. LoginAcid), while AWAITING_INPUT. */
  challenge_step: string | null;
  /** What X said it sent where (e.g. 'Check your email'), while AWAITING_INPUT. */
  challenge_hint: string | null;
  challenge_since: Timestamp | null;
  /** JSON: { [operation]: { limit, remaining, resetAt } } as X's headers told. */
  limits: Generated<string>;
  last_error: string | null;
  last_error_at: Timestamp | null;
  last_used_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A GraphQL operation as last read from x.com's client bundle (migration 0015). */
export interface XWebOperationsTable {
  name: string;
  query_id: string;
  /** JSON object: feature name -> boolean. */
  features: string;
  /** JSON object: field toggle name -> boolean. */
  field_toggles: string;
  /** When the bundle last showed these values. */
  seen_at: Timestamp;
  updated_at: Timestamp;
}

/** An operation's values pinned by an operator (Admin page): used instead of the bundle's. */
export interface XWebOperationPinsTable {
  name: string;
  query_id: string;
  /** JSON object, or null: the features in use are kept. */
  features: string | null;
  field_toggles: string | null;
  pinned_at: Timestamp;
  pinned_by: string | null;
}

/** The x-web source's shared state (one row, id 1). */
export interface XWebStateTable {
  id: number;
  /** The last look at x.com's client bundle, and the last one that succeeded. */
  ops_checked_at: Timestamp | null;
  ops_refreshed_at: Timestamp | null;
  /** Why the last look failed, or null. */
  ops_error: string | null;
  /** The pool waits until then: X answered a web request with an HTML page (Cloudflare). */
  paused_until: Timestamp | null;
  pause_reason: string | null;
  paused_since: Timestamp | null;
  /** Refusals in a row: the pause doubles with each (1 min up to 30 min); 0 when not paused. */
  pause_step: Generated<number>;
}

/** One request in flight for an account and operation, until `until` (a dead holder's expires). */
export interface XWebLeasesTable {
  account_id: number;
  operation: string;
  holder: string;
  until: Timestamp;
}

export type XBilledKind = 'post' | 'user';

/** One billed X resource of one UTC day (the cost meter). */
export interface XBilledReadsTable {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  kind: XBilledKind;
  resource_id: string;
  handle_id: number | null;
  read_at: Timestamp;
}

/** 'auth': X refused the credentials (401/403); 'credits': the balance is gone (402). */
export type XApiState = 'ok' | 'auth' | 'credits';

/** The single row (id 1) of the X credentials' state. */
export interface XApiStatusTable {
  id: number;
  state: XApiState;
  detail: string | null;
  since: Timestamp | null;
  last_probe_at: Timestamp | null;
  next_probe_at: Timestamp | null;
  updated_at: Timestamp;
}

export interface RecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  used_at: Timestamp | null;
  created_at: Timestamp;
}

/** A password accepted for a two-factor account, waiting for its code (cookie perch_2fa). */
export interface PendingLoginsTable {
  id: string;
  user_id: number;
  remember_me: GeneratedBool;
  ip: string | null;
  user_agent: string | null;
  attempts: Generated<number>;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface Database {
  handles: HandlesTable;
  user_handles: UserHandlesTable;
  tweets: TweetsTable;
  profile_snapshots: ProfileSnapshotsTable;
  tweet_metric_snapshots: TweetMetricSnapshotsTable;
  users: UsersTable;
  sessions: SessionsTable;
  invitations: InvitationsTable;
  login_attempts: LoginAttemptsTable;
  sign_in_holds: SignInHoldsTable;
  user_settings: UserSettingsTable;
  notification_outbox: NotificationOutboxTable;
  delivery_chat_locks: DeliveryChatLocksTable;
  delivery_chats: DeliveryChatsTable;
  cluster_nodes: ClusterNodesTable;
  telegram_link_codes: TelegramLinkCodesTable;
  x_accounts: XAccountsTable;
  oauth_states: OauthStatesTable;
  security_events: SecurityEventsTable;
  collector_account: CollectorAccountTable;
  x_billed_reads: XBilledReadsTable;
  x_api_status: XApiStatusTable;
  recovery_codes: RecoveryCodesTable;
  pending_logins: PendingLoginsTable;
  feed_tokens: FeedTokensTable;
  x_web_accounts: XWebAccountsTable;
  x_web_operations: XWebOperationsTable;
  x_web_operation_pins: XWebOperationPinsTable;
  x_web_state: XWebStateTable;
  x_web_leases: XWebLeasesTable;
}

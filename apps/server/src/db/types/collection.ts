/**
 * The tables of collection: handles and who follows them, posts, profile and metric
 * snapshots, the collector account, the X cost meter and credentials state, and the running nodes.
 */
import type { Generated, Selectable } from 'kysely';
import type { HandleStatus } from '../../domain/collector-events.js';
import type { Bool, GeneratedBool, Timestamp } from './columns.js';

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
  /** New posts also go to the user's webhooks (migration 0021). */
  webhook_enabled: GeneratedBool;
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

/** Word counts of a handle's posts of one UTC day (migration 0024). */
export interface TweetWordDaysTable {
  handle_id: number;
  /** YYYY-MM-DD, UTC. */
  day: string;
  generation: Generated<number>;
  /** [version, word, count, ...] JSON; null while to be counted again. */
  counts: string | null;
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

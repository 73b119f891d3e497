import {
  DEFAULT_BACKFILL_DAYS,
  MAX_BACKFILL_DAYS,
  MAX_HANDLES_PER_USER,
  MIN_BACKFILL_DAYS,
  READY_STATUSES,
  type Handle,
  type ProgressStatus,
} from '@perch/shared';
import { formatCount } from '@/lib/format';

/** Texts of the handles demo panel (docs/spec-notes.md, Admin screen). */
export const DEMO_TEXTS = {
  show: 'Show TanStack Query Demo',
  hide: 'Hide Demo',
  inputPlaceholder: 'Enter Twitter handle (e.g., @username)',
  limitReached: `Handle limit reached (${MAX_HANDLES_PER_USER} max)`,
  alreadyExists: 'Handle already exists',
  empty: 'No handles added yet. Add your first Twitter handle above.',
  listTitle: (count: number) => `Handles (${count}/${MAX_HANDLES_PER_USER})`,
  counts: (tweets: number, followers: number) =>
    `Tweets: ${formatCount(tweets)} | Followers: ${formatCount(followers)}`,
  analyticsAvailable: (available: boolean) => `Analytics Available: ${available ? 'Yes' : 'No'}`,
} as const;

/** A handle as the demo panel maps it. */
export interface DemoHandle {
  id: number;
  handle: string;
  /** The backfill status; idle when the server gave none. */
  status: ProgressStatus;
  progress: number;
  hasData: boolean;
  tweetsCollected: number;
  createdAt: string;
  followersCount: number;
  followingCount: number;
  tweetCount: number;
}

/** The server record in the demo's shape, with the demo's defaults for missing values. */
export function toDemoHandle(handle: Handle): DemoHandle {
  return {
    id: handle.id,
    handle: handle.handle,
    status: handle.backfill_status,
    progress: handle.backfill_progress,
    // The server's word: the backfill finished with tweets, so analytics can be shown.
    hasData: handle.analytics_available,
    tweetsCollected: handle.total_tweets_collected,
    createdAt: handle.created_at,
    followersCount: handle.followers_count ?? 0,
    followingCount: handle.following_count ?? 0,
    tweetCount: handle.tweet_count ?? 0,
  };
}

export type DemoBadge = 'Ready' | 'Collecting' | 'Pending';

const COLLECTING_STATUSES: readonly ProgressStatus[] = ['in_progress', 'collecting'];

/** Ready when complete or data exists, Collecting while in progress, otherwise Pending. */
export function demoBadge(handle: Pick<DemoHandle, 'status' | 'hasData'>): DemoBadge {
  if (handle.hasData || (READY_STATUSES as readonly ProgressStatus[]).includes(handle.status)) {
    return 'Ready';
  }
  if (COLLECTING_STATUSES.includes(handle.status)) return 'Collecting';
  return 'Pending';
}

export const DEMO_BADGE_COLORS: Record<DemoBadge, string> = {
  Ready: 'green',
  Collecting: 'blue',
  Pending: 'yellow',
};

/**
 * The backfill period the demo sends: whole days from 1 to 90, and 15 when the input is empty
 * or not a number.
 */
export function demoBackfillDays(value: number | string): number {
  const days = typeof value === 'number' ? value : Number.parseFloat(value);
  if (!Number.isFinite(days)) return DEFAULT_BACKFILL_DAYS;
  return Math.min(MAX_BACKFILL_DAYS, Math.max(MIN_BACKFILL_DAYS, Math.round(days)));
}

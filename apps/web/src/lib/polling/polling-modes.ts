import {
  NETWORK_QUALITY_MULTIPLIERS,
  POLL_ACTIVITY_FAST_WITHIN_MS,
  POLL_ACTIVITY_NORMAL_WITHIN_MS,
  POLL_ACTIVITY_SLOW_WITHIN_MS,
  POLL_GROWTH_CAP_MS,
  POLL_HIDDEN_PAGE_FACTOR,
  POLL_UNCHANGED_GROWTH,
  POLLING_INTERVALS_MS,
  type NetworkQuality,
  type PollingMode,
  type PollingSpeed,
  type PollPriority,
} from '@perch/shared';

/** What the polling mode depends on. */
export interface PollingConditions {
  /** The browser reports a connection. */
  online: boolean;
  /** The page is visible. */
  visible: boolean;
  /** The page has focus. */
  focused: boolean;
  /** The latest rating of the network monitor. */
  networkQuality: NetworkQuality;
}

/**
 * The polling mode for the current conditions (docs/spec-notes.md, Client resilience).
 *
 * Offline wins, then a hidden or unfocused tab (background). A visible, focused tab follows the
 * network: poor is minimal, slow is slow, moderate and good are active. The spec's "normal or
 * fast" for moderate and good names no mode of its own: both poll on the active table, and good's
 * x0.8 multiplier ({@link networkMultiplier}) is what makes it the faster of the two.
 */
export function pollingModeFor(conditions: PollingConditions): PollingMode {
  if (!conditions.online) return 'offline';
  if (!conditions.visible || !conditions.focused) return 'background';
  if (conditions.networkQuality === 'poor') return 'minimal';
  if (conditions.networkQuality === 'slow') return 'slow';
  return 'active';
}

/** The speed for the time since the user's last activity: under 10 s fast, 60 s normal, 5 min slow. */
export function activitySpeed(sinceActivityMs: number): PollingSpeed {
  if (sinceActivityMs < POLL_ACTIVITY_FAST_WITHIN_MS) return 'fast';
  if (sinceActivityMs < POLL_ACTIVITY_NORMAL_WITHIN_MS) return 'normal';
  if (sinceActivityMs < POLL_ACTIVITY_SLOW_WITHIN_MS) return 'slow';
  return 'idle';
}

/** The base interval of a mode at a speed; null when the mode does not poll (offline). */
export function modeInterval(mode: PollingMode, speed: PollingSpeed): number | null {
  const intervals = POLLING_INTERVALS_MS[mode];
  return intervals ? intervals[speed] : null;
}

/** Interval multiplier of a network quality: poor x3, slow x2, moderate x1, good x0.8. */
export function networkMultiplier(quality: NetworkQuality): number {
  return NETWORK_QUALITY_MULTIPLIERS[quality];
}

/** Growth after this many polls in a row brought nothing new: 2x after 1, 4x after 3, 12x after 6. */
export function unchangedGrowthFactor(unchangedPolls: number): number {
  const step = POLL_UNCHANGED_GROWTH.find((entry) => unchangedPolls >= entry.afterUnchanged);
  return step ? step.factor : 1;
}

/**
 * An interval stretched by adaptive growth. Growth stops at 10 min, the longest interval of the
 * mode table; an interval already longer than that (minimal idle on a poor network) is kept, never
 * shortened.
 */
export function applyUnchangedGrowth(intervalMs: number, unchangedPolls: number): number {
  const factor = unchangedGrowthFactor(unchangedPolls);
  if (factor === 1) return intervalMs;
  return Math.max(intervalMs, Math.min(intervalMs * factor, POLL_GROWTH_CAP_MS));
}

/**
 * A hidden page triples the interval of normal and high priority polls. The spec states nothing
 * for low priority, so a low priority interval is left as it is.
 */
export function applyHiddenPage(
  intervalMs: number,
  hidden: boolean,
  priority: PollPriority,
): number {
  return hidden && priority !== 'low' ? intervalMs * POLL_HIDDEN_PAGE_FACTOR : intervalMs;
}

/** Everything one poll's next interval depends on. */
export interface PollIntervalInput extends PollingConditions {
  /** Time since the user's last activity. */
  sinceActivityMs: number;
  /** Polls in a row that brought nothing new. */
  unchangedPolls: number;
  priority: PollPriority;
  /** The poll's own interval: the mode's interval never goes below it (0 by default). */
  floorMs?: number;
}

/**
 * The next interval of a poll, in whole milliseconds, or null when nothing should poll (offline).
 * Order: the mode's interval for the activity speed (or the poll's own interval when longer),
 * times the network multiplier, stretched by adaptive growth (capped), then tripled when the page
 * is hidden (normal or high priority).
 */
export function nextPollInterval(input: PollIntervalInput): number | null {
  const mode = pollingModeFor(input);
  const modeMs = modeInterval(mode, activitySpeed(input.sinceActivityMs));
  if (modeMs === null) return null;
  const base = Math.max(modeMs, input.floorMs ?? 0);
  const onNetwork = base * networkMultiplier(input.networkQuality);
  const grown = applyUnchangedGrowth(onNetwork, input.unchangedPolls);
  return Math.round(applyHiddenPage(grown, !input.visible, input.priority));
}

import {
  ALERT_HANDLE_COOLDOWN_HOURS,
  type FollowerChangeKind,
  type HandleAlertKind,
  type SilenceKind,
} from '@perch/shared';
import { stepCrossing } from './crossing.js';
import type { Firing, FiringNumbers, HandleRule, HandleRuleMemory, HandleState } from './types.js';

/**
 * Rules about a handle's state, fired once per crossing with a cooldown (crossing.ts).
 *
 * - follower_change: the latest follower count against the earliest count of the 24 hours before
 *   it (so the change is one that happened within 24 h). The change counts when it goes the
 *   rule's way and reaches `accounts` or `percent` of the earlier count (either, when both are
 *   set). From 0 followers a percentage means nothing: only `accounts` can fire. Unknown without
 *   two counts in those 24 hours.
 * - silence: at least `days` days since the handle's last post; unknown without any post.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const FOLLOWER_CHANGE_WINDOW_MS = DAY_MS;

export interface HandleRuleOptions {
  /** Hours a rule stays quiet after firing (default ALERT_HANDLE_COOLDOWN_HOURS). */
  cooldownHours?: number;
}

/** A handle rule's condition now: met or not (with its numbers), or unknown for lack of data. */
export interface HandleCondition {
  met: boolean | null;
  numbers: FiringNumbers;
}

export interface HandleRuleStep {
  firing: Firing | null;
  /** What to store for the next evaluation. */
  memory: HandleRuleMemory;
}

/**
 * One evaluation of a handle rule at `now`: its firing, if any, and its memory afterwards. A
 * rule switched off neither fires nor changes its memory.
 */
export function evaluateHandleRule(
  rule: HandleRule,
  state: HandleState,
  memory: HandleRuleMemory,
  now: number,
  options: HandleRuleOptions = {},
): HandleRuleStep {
  if (!rule.enabled) return { firing: null, memory };
  const condition = handleCondition(rule.kind, state, now);
  const cooldownMs = (options.cooldownHours ?? ALERT_HANDLE_COOLDOWN_HOURS) * HOUR_MS;
  const step = stepCrossing(memory, condition.met, now, cooldownMs);
  const firing = step.fire ? { ruleId: rule.id, at: now, numbers: condition.numbers } : null;
  return { firing, memory: step.memory };
}

export function handleCondition(
  kind: HandleAlertKind,
  state: HandleState,
  now: number,
): HandleCondition {
  switch (kind.type) {
    case 'follower_change':
      return followerChange(kind, state, now);
    case 'silence':
      return silence(kind, state, now);
  }
}

function followerChange(
  kind: FollowerChangeKind,
  state: HandleState,
  now: number,
): HandleCondition {
  const counts = state.profileSnapshots
    .filter((snapshot) => snapshot.takenAt <= now)
    .toSorted((a, b) => a.takenAt - b.takenAt);
  const latest = counts.at(-1);
  const before =
    latest && counts.find((s) => s.takenAt >= latest.takenAt - FOLLOWER_CHANGE_WINDOW_MS);
  if (!latest || !before || before === latest) return { met: null, numbers: {} };
  const change = latest.followers - before.followers;
  const size = Math.abs(change);
  const percentChange = before.followers > 0 ? (size / before.followers) * 100 : null;
  const goesItsWay =
    kind.direction === 'either' ? change !== 0 : kind.direction === 'up' ? change > 0 : change < 0;
  const byAccounts = kind.accounts !== undefined && size >= kind.accounts;
  const byPercent =
    kind.percent !== undefined && percentChange !== null && percentChange >= kind.percent;
  return {
    met: goesItsWay && (byAccounts || byPercent),
    numbers: {
      followers: latest.followers,
      followers_before: before.followers,
      change,
      ...(percentChange !== null && { percent_change: percentChange }),
      ...(kind.accounts !== undefined && { accounts: kind.accounts }),
      ...(kind.percent !== undefined && { percent: kind.percent }),
      taken_at: latest.takenAt,
      before_taken_at: before.takenAt,
    },
  };
}

function silence(kind: SilenceKind, state: HandleState, now: number): HandleCondition {
  if (state.lastPostAt === null) return { met: null, numbers: {} };
  const silentMs = now - state.lastPostAt;
  return {
    met: silentMs >= kind.days * DAY_MS,
    numbers: { days: kind.days, days_silent: silentMs / DAY_MS, last_post_at: state.lastPostAt },
  };
}

import {
  POST_ALERT_KINDS,
  type AlertKind,
  type AlertMetric,
  type EngagementMultipleKind,
  type MetricThresholdKind,
  type PostAlertKind,
  type WordsKind,
} from '@perch/shared';
import { engagementOf } from '../analytics/window.js';
import { compileFilter, type CompiledFilter } from '../notify/notification-filter.js';
import type {
  AlertPost,
  EvaluatedRule,
  Firing,
  FiringNumbers,
  MetricReading,
  PostRule,
  PostRuleContext,
} from './types.js';

/**
 * Rules about one post. Each decides from the post and the handle's medians alone; that a rule
 * fires at most once per post is the caller's to keep, with `firingKey` and `withoutFired`.
 *
 * - metric_threshold: the post's latest reading taken within `within_hours` of its creation has
 *   the metric at or above the threshold. A reading taken later does not count, so a post that
 *   reaches 100 likes on its third day does not pass "100 likes within 24 h".
 * - engagement_multiple: the post's engagement (likes + reposts + replies + quotes, latest known,
 *   docs/analytics.md) is at least `multiple` times the handle's median engagement of the period.
 *   Without a median, or with a median of 0, nothing fires: any engagement would be "infinitely"
 *   above it.
 * - words: the post's text contains an included term and no excluded one, as the notification
 *   filter matches them (whole words, any script, exclude wins).
 */

const HOUR_MS = 3_600_000;

/** Where each metric of a rule sits in a reading. */
const READING_FIELD = {
  likes: 'likes',
  reposts: 'retweets',
  replies: 'replies',
  quotes: 'quotes',
  views: 'views',
} as const satisfies Record<AlertMetric, keyof MetricReading>;

/** Whether a rule is about posts (rather than about its handle). */
export function isPostRule(rule: EvaluatedRule): rule is PostRule {
  return (POST_ALERT_KINDS as readonly AlertKind['type'][]).includes(rule.kind.type);
}

/** The firing of a post rule, or null when the rule is off or its condition does not hold. */
export function evaluatePostRule(
  rule: PostRule,
  post: AlertPost,
  context: PostRuleContext,
): Firing | null {
  if (!rule.enabled) return null;
  const numbers = postRuleNumbers(rule.kind, post, context);
  return numbers && { ruleId: rule.id, postId: post.id, at: context.now, numbers };
}

/** The numbers that crossed, or null when the condition does not hold. */
function postRuleNumbers(
  kind: PostAlertKind,
  post: AlertPost,
  context: PostRuleContext,
): FiringNumbers | null {
  switch (kind.type) {
    case 'metric_threshold':
      return metricThreshold(kind, post);
    case 'engagement_multiple':
      return engagementMultiple(kind, post, context);
    case 'words':
      return wordsMatch(kind, post) ? {} : null;
  }
}

function metricThreshold(kind: MetricThresholdKind, post: AlertPost): FiringNumbers | null {
  const field = READING_FIELD[kind.metric];
  const until = post.createdAt + kind.within_hours * HOUR_MS;
  const reading = latestReading(
    post.readings,
    (r) => r.takenAt >= post.createdAt && r.takenAt <= until && isCount(r[field]),
  );
  const value = reading?.[field];
  if (!reading || !isCount(value) || value < kind.threshold) return null;
  return {
    value,
    threshold: kind.threshold,
    within_hours: kind.within_hours,
    taken_at: reading.takenAt,
  };
}

function engagementMultiple(
  kind: EngagementMultipleKind,
  post: AlertPost,
  context: PostRuleContext,
): FiringNumbers | null {
  const median = context.medianEngagement[kind.period];
  if (median === null || median === undefined || !(median > 0)) return null;
  const reading = latestReading(post.readings, () => true);
  if (!reading) return null;
  const engagement = engagementOf(reading);
  const threshold = kind.multiple * median;
  if (engagement < threshold) return null;
  return { engagement, median, multiple: kind.multiple, threshold, taken_at: reading.takenAt };
}

const isCount = (value: number | null | undefined): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/** The reading taken last among those accepted (the later one in input order on a tie). */
function latestReading(
  readings: readonly MetricReading[],
  accept: (reading: MetricReading) => boolean,
): MetricReading | undefined {
  let latest: MetricReading | undefined;
  for (const reading of readings) {
    if (accept(reading) && (!latest || reading.takenAt >= latest.takenAt)) latest = reading;
  }
  return latest;
}

// A rule's terms are compiled once, however many posts it sees. A post's word boundaries are
// only worked out when one of the terms appears in it at all (compileFilter).
const compiledWords = new WeakMap<WordsKind, CompiledFilter | null>();

function wordsMatch(kind: WordsKind, post: AlertPost): boolean {
  let filter = compiledWords.get(kind);
  if (filter === undefined) {
    filter = compileFilter({ include: kind.include, exclude: kind.exclude, media_only: false });
    compiledWords.set(kind, filter);
  }
  // The contract requires an included term, so a compiled filter always exists; without one
  // there is nothing to watch for.
  if (!filter) return false;
  return filter.heldBackReason({ text: post.text, media: [] }) === null;
}

/** The key of a post rule's firing: one per rule and post. */
export function firingKey(ruleId: number, postId: string): string {
  return `${ruleId}:${postId}`;
}

/**
 * The firings whose (rule, post) is not among the keys already fired, each key once (the first
 * firing of a key wins).
 */
export function withoutFired(firings: readonly Firing[], firedKeys: ReadonlySet<string>): Firing[] {
  const seen = new Set<string>();
  return firings.filter((firing) => {
    if (firing.postId === undefined) return true;
    const key = firingKey(firing.ruleId, firing.postId);
    if (firedKeys.has(key) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

import type { AlertKind, AlertMetric } from '@perch/shared';
import { formatDateTime } from '@/lib/format';
import { METRIC_LABELS } from './alert-texts';

/**
 * What a rule watches and what a firing's numbers were, in plain English. The server words the
 * firing's own summary line; these describe the rule itself, which the server sends as data.
 */

const count = (value: number) => value.toLocaleString('en-US');

/** At most `digits` decimals, without trailing zeros: 2.5, 3, 12.35. */
const decimal = (value: number, digits = 2) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits });

const plural = (value: number, one: string, many = `${one}s`) =>
  `${count(value)} ${value === 1 ? one : many}`;

/** A metric as a count of it reads: '1,000 likes', '1 repost'. */
const METRIC_NOUNS = {
  likes: ['like', 'likes'],
  reposts: ['repost', 'reposts'],
  replies: ['reply', 'replies'],
  quotes: ['quote', 'quotes'],
  views: ['view', 'views'],
} as const satisfies Record<AlertMetric, readonly [string, string]>;

function metricCount(metric: AlertMetric, value: number): string {
  const [one, many] = METRIC_NOUNS[metric];
  return plural(value, one, many);
}

/** Terms in quotes joined with 'or': '“launch” or “landing”', '“a”, “b” or “c”'. */
export function termList(terms: readonly string[]): string {
  const quoted = terms.map((term) => `“${term}”`);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

const FOLLOWER_VERBS = { up: 'grow', down: 'drop', either: 'change' } as const;

/**
 * One sentence saying when a rule fires, e.g. 'A post reaches 1,000 likes within 24 hours of
 * posting.' or 'Followers drop by 5% or 100 accounts within 24 hours.'.
 */
export function describeRule(kind: AlertKind): string {
  switch (kind.type) {
    case 'metric_threshold':
      return `A post reaches ${metricCount(kind.metric, kind.threshold)} within ${plural(kind.within_hours, 'hour')} of posting.`;
    case 'engagement_multiple':
      return `A post's engagement reaches ${decimal(kind.multiple)}× the handle's median of the last ${kind.period === 'week' ? '7' : '30'} days.`;
    case 'words': {
      const without = kind.exclude.length > 0 ? `, but not ${termList(kind.exclude)}` : '';
      return `A post mentions ${termList(kind.include)}${without}.`;
    }
    case 'follower_change': {
      const amounts = [
        kind.percent !== undefined ? `${decimal(kind.percent)}%` : null,
        kind.accounts !== undefined ? plural(kind.accounts, 'account') : null,
      ].filter((amount): amount is string => amount !== null);
      return `Followers ${FOLLOWER_VERBS[kind.direction]} by ${amounts.join(' or ')} within 24 hours.`;
    }
    case 'silence':
      return `The handle has not posted for ${plural(kind.days, 'day')}.`;
  }
}

/** The names a firing's numbers go by, in the order they are shown. */
const NUMBER_LABELS: Record<string, string> = {
  value: 'Reached',
  engagement: 'Engagement',
  median: 'Median',
  threshold: 'Threshold',
  multiple: 'Multiple',
  within_hours: 'Within hours',
  followers: 'Followers',
  followers_before: 'Before',
  change: 'Change',
  percent_change: 'Change (%)',
  percent: 'Percent needed',
  accounts: 'Accounts needed',
  days_silent: 'Days without a post',
  days: 'Days needed',
  last_post_at: 'Last post',
  before_taken_at: 'Compared with',
  taken_at: 'Measured',
};
const NUMBER_ORDER = Object.keys(NUMBER_LABELS);

/** 'followers_before' as 'Followers before', for a number the page has no name for. */
function humanize(name: string): string {
  const words = name.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function formatNumber(name: string, value: number): string {
  // Times are sent as epoch milliseconds.
  if (name.endsWith('_at')) return formatDateTime(new Date(value).toISOString());
  if (name === 'change')
    return `${value > 0 ? '+' : value < 0 ? '−' : ''}${count(Math.abs(value))}`;
  if (name === 'percent_change' || name === 'percent') return `${decimal(value, 1)}%`;
  if (name === 'multiple') return `${decimal(value)}×`;
  if (name === 'days_silent') return decimal(value, 1);
  return decimal(value);
}

export interface FiringNumber {
  name: string;
  label: string;
  value: string;
}

/**
 * A firing's numbers, named and formatted, the known ones first in a set order, then any other
 * the server sends; the metric a threshold rule watched names its value ('Likes').
 */
export function firingNumbers(kind: AlertKind, numbers: Record<string, number>): FiringNumber[] {
  const rank = (name: string) => {
    const index = NUMBER_ORDER.indexOf(name);
    return index === -1 ? NUMBER_ORDER.length : index;
  };
  return Object.entries(numbers)
    .filter(([, value]) => Number.isFinite(value))
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([name, value]) => ({
      name,
      label:
        name === 'value' && kind.type === 'metric_threshold'
          ? METRIC_LABELS[kind.metric]
          : (NUMBER_LABELS[name] ?? humanize(name)),
      value: formatNumber(name, value),
    }));
}

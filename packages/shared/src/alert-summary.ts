import type { AlertKind } from './contracts/alerts.js';

/**
 * What a firing says to a person, in one line: the alert history, the Telegram and Discord
 * messages and the webhooks' `summary` all use it, so they read alike.
 */

const METRIC_NAMES = {
  likes: 'likes',
  reposts: 'reposts',
  replies: 'replies',
  quotes: 'quotes',
  views: 'views',
} as const;

const count = (value: number | undefined): string =>
  value === undefined ? '?' : Math.round(value).toLocaleString('en-US');

const decimal = (value: number | undefined, digits = 1): string =>
  value === undefined ? '?' : Number(value.toFixed(digits)).toLocaleString('en-US');

const plural = (value: number, one: string, many = `${one}s`): string =>
  `${value.toLocaleString('en-US')} ${value === 1 ? one : many}`;

/** '"a"', '"a" or "b"', '"a", "b" or "c"'. */
function anyOf(terms: readonly string[]): string {
  if (terms.length <= 1) return terms.join('');
  return `${terms.slice(0, -1).join(', ')} or ${terms[terms.length - 1]}`;
}

/** One line about a firing of `kind` for @handle with its numbers. */
export function describeFiring(
  handle: string,
  kind: AlertKind,
  numbers: Record<string, number>,
): string {
  switch (kind.type) {
    case 'metric_threshold':
      return (
        `A post by @${handle} reached ${count(numbers.value)} ${METRIC_NAMES[kind.metric]} ` +
        `within ${plural(kind.within_hours, 'hour')} (threshold ${count(kind.threshold)}).`
      );
    case 'engagement_multiple':
      return (
        `A post by @${handle} has ${count(numbers.engagement)} engagements, ` +
        `${decimal(kind.multiple)}x or more the ${kind.period === 'week' ? 'weekly' : 'monthly'} ` +
        `median of ${decimal(numbers.median)}.`
      );
    case 'words':
      return `A post by @${handle} mentions ${anyOf(kind.include.map((term) => `"${term}"`))}.`;
    case 'follower_change': {
      const change = numbers.change ?? 0;
      const sign = change > 0 ? '+' : change < 0 ? '−' : '';
      const percent =
        numbers.percent_change === undefined ? '' : ` (${sign}${decimal(numbers.percent_change)}%)`;
      return (
        `@${handle} ${change >= 0 ? 'gained' : 'lost'} ${plural(Math.abs(change), 'follower')}` +
        `${percent} within 24 hours: ${count(numbers.followers_before)} → ${count(numbers.followers)}.`
      );
    }
    case 'silence':
      return `@${handle} has not posted for ${plural(Math.floor(numbers.days_silent ?? kind.days), 'day')}.`;
  }
}

import { emptyTimeseriesPoint, type Timeseries, type TimeseriesPoint } from '@perch/shared';
import { average, perFollowers } from './stats.js';
import { formatDay } from './timezone.js';
import type { PreparedWindow } from './window.js';

/**
 * The timeseries block: one point per local calendar day from the window's first to its last
 * day, days without posts included, oldest first.
 */
export function timeseries(prepared: PreparedWindow): Timeseries {
  const { firstDay, lastDay } = prepared;
  const series: TimeseriesPoint[] = [];
  for (let day = firstDay; day <= lastDay; day++) {
    series.push(emptyTimeseriesPoint(formatDay(day)));
  }
  for (const { day, tweet, engagement } of prepared.posts) {
    const point = series[day - firstDay];
    // Cannot miss for a post inside the window; guards against inconsistent hand-built input.
    if (!point) continue;
    point.tweets += 1;
    point.likes += tweet.likes;
    point.retweets += tweet.retweets;
    point.replies += tweet.replies;
    point.quotes += tweet.quotes;
    point.engagement += engagement;
  }
  for (const point of series) {
    // A day without posts averages to 0, so its rate is 0 (or null without followers).
    point.engagement_rate = perFollowers(
      average(point.engagement, point.tweets),
      prepared.followers,
    );
  }
  return { series };
}

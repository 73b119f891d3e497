import { READY_STATUSES, type CompleteAnalytics } from '@perch/shared';

/** True when the payload belongs to the selected handle (names compare case-insensitively). */
export function isForHandle(data: Pick<CompleteAnalytics, 'handle'>, handle: string): boolean {
  return data.handle.toLowerCase() === handle.toLowerCase();
}

/** True while the server still collects the handle: the dashboard polls the payload then. */
export function isStillCollecting(data: CompleteAnalytics | undefined): boolean {
  return data?.analytics_status === 'collecting';
}

/**
 * Whether complete analytics data is present (docs/spec-notes.md, Collecting overlay): the data is
 * ready or the backfill complete, or the payload already holds tweets and followers, top tweets, a
 * time series with posts or an engagement rate. The overlay comes off as soon as this holds.
 */
export function hasCompleteAnalyticsData(data: CompleteAnalytics | undefined): boolean {
  if (!data) return false;
  if (data.analytics_status === 'data_ready') return true;
  if (READY_STATUSES.includes(data.backfillProgress.status)) return true;
  const { summary } = data;
  if (summary.total_tweets > 0 && (summary.followers ?? 0) > 0) return true;
  if (data.topTweets.tweets.length > 0) return true;
  if (data.timeSeries.series.some((day) => day.tweets > 0)) return true;
  return (summary.engagement_rate ?? 0) > 0;
}

/** True when the window holds no posts: the dashboard says 'No data available yet'. */
export function hasNoPosts(data: CompleteAnalytics): boolean {
  return data.summary.total_tweets === 0;
}

/**
 * The handles next to the selected one in the list (previous and next, no wrap-around): their
 * analytics are fetched ahead so that switching to them is instant.
 */
export function neighbourHandles(handles: readonly string[], selected: string): string[] {
  const wanted = selected.toLowerCase();
  const index = handles.findIndex((name) => name.toLowerCase() === wanted);
  if (index < 0) return [];
  return [handles[index - 1], handles[index + 1]].filter(
    (name): name is string => name !== undefined && name.toLowerCase() !== wanted,
  );
}

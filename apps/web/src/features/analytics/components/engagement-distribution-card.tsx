import type { CompleteAnalytics } from '@perch/shared';
import { formatInteger } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { PostsBarChartCard } from './posts-bar-chart-card';

/** How many posts fall in each engagement bucket. */
export function EngagementDistributionCard({ data }: { data: CompleteAnalytics }) {
  const rows = data.engagementDistribution.buckets.map((bucket) => ({
    bucket: bucket.bucket,
    posts: bucket.count,
  }));
  return (
    <PostsBarChartCard
      analytics={data}
      title="Engagement distribution"
      definition={METRIC_DEFINITIONS.engagementDistribution}
      subtitle="Posts per engagement range"
      testId="analytics-engagement-distribution"
      chart={{
        data: rows,
        dataKey: 'bucket',
        series: [{ name: 'posts', label: 'Posts', color: 'violet.5' }],
        valueFormatter: formatInteger,
        maxBarWidth: 40,
        yAxisProps: { width: 36, allowDecimals: false },
        'aria-label': 'Posts per engagement range',
      }}
    />
  );
}

import { BarChart } from '@mantine/charts';
import type { CompleteAnalytics } from '@perch/shared';
import { formatInteger } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { SectionCard, SectionEmpty } from './section-card';

/** How many posts fall in each engagement bucket. */
export function EngagementDistributionCard({ data }: { data: CompleteAnalytics }) {
  const rows = data.engagementDistribution.buckets.map((bucket) => ({
    bucket: bucket.bucket,
    posts: bucket.count,
  }));
  return (
    <SectionCard
      title="Engagement distribution"
      definition={METRIC_DEFINITIONS.engagementDistribution}
      subtitle="Posts per engagement range"
      testId="analytics-engagement-distribution"
    >
      {data.summary.total_tweets === 0 ? (
        <SectionEmpty>No posts in this period.</SectionEmpty>
      ) : (
        <BarChart
          h={200}
          data={rows}
          dataKey="bucket"
          series={[{ name: 'posts', label: 'Posts', color: 'violet.5' }]}
          valueFormatter={formatInteger}
          tickLine="none"
          maxBarWidth={40}
          yAxisProps={{ width: 36, allowDecimals: false }}
          aria-label="Posts per engagement range"
        />
      )}
    </SectionCard>
  );
}

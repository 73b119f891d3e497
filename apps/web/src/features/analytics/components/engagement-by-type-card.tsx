import { CONTENT_TYPES, type CompleteAnalytics } from '@perch/shared';
import { METRIC_COLORS } from '../utils/chart-colors';
import { formatDecimal } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { CONTENT_TYPE_LABELS } from './content-types-card';
import { PostsBarChartCard } from './posts-bar-chart-card';

/** Average engagement of each content type's posts. */
export function EngagementByTypeCard({ data }: { data: CompleteAnalytics }) {
  const byType = data.engagement.engagementByType;
  const rows = CONTENT_TYPES.map((type) => ({
    type: CONTENT_TYPE_LABELS[type],
    engagement: byType[type],
  }));
  return (
    <PostsBarChartCard
      analytics={data}
      title="Engagement by content type"
      definition={METRIC_DEFINITIONS.engagementByType}
      subtitle="Average engagement per post"
      testId="analytics-engagement-by-type"
      chart={{
        data: rows,
        dataKey: 'type',
        series: [{ name: 'engagement', label: 'Avg engagement', color: METRIC_COLORS.engagement }],
        valueFormatter: formatDecimal,
        maxBarWidth: 48,
        yAxisProps: { width: 44 },
        'aria-label': 'Average engagement per content type',
      }}
    />
  );
}

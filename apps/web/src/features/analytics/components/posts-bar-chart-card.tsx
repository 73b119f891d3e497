import { BarChart, type BarChartProps } from '@mantine/charts';
import type { CompleteAnalytics } from '@perch/shared';
import { SectionCard, SectionEmpty, type SectionCardProps } from './section-card';

export interface PostsBarChartCardProps extends Omit<SectionCardProps, 'children'> {
  analytics: CompleteAnalytics;
  /** The chart's own settings; every such chart is 200 px high without tick lines. */
  chart: Omit<BarChartProps, 'h' | 'tickLine'>;
}

/** A section with one bar chart about the window's posts, or a quiet line when there are none. */
export function PostsBarChartCard({ analytics, chart, ...card }: PostsBarChartCardProps) {
  return (
    <SectionCard {...card}>
      {analytics.summary.total_tweets === 0 ? (
        <SectionEmpty>No posts in this period.</SectionEmpty>
      ) : (
        <BarChart h={200} tickLine="none" {...chart} />
      )}
    </SectionCard>
  );
}

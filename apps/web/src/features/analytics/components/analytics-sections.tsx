import { SimpleGrid, Stack } from '@mantine/core';
import type { CompleteAnalytics } from '@perch/shared';
import type { ComponentType } from 'react';
import { ContentTypesCard } from './content-types-card';
import { EngagementByTypeCard } from './engagement-by-type-card';
import { EngagementDistributionCard } from './engagement-distribution-card';
import { FollowerGrowthCard } from './follower-growth-card';
import { HashtagsCard } from './hashtags-card';
import { InteractionBreakdownCard } from './interaction-breakdown-card';
import { LanguagesCard } from './languages-card';
import { MediaCard } from './media-card';
import { PeakTimesCard } from './peak-times-card';
import { PostingHeatmap } from './posting-heatmap';
import { SummaryCards } from './summary-cards';
import { ThreadPerformanceCard } from './thread-performance-card';
import { TimeSeriesCard } from './time-series-card';
import { TopTweetsCard } from './top-tweets-card';
import { VelocityCard } from './velocity-card';
import { ViralityCard } from './virality-card';
import { WordsCard } from './words-card';

/** Columns of the section grid by the width of the analytics area (not the window). */
export const SECTION_COLUMNS = { base: 1, '720px': 2, '1180px': 3 } as const;

/** The cards of the section grid, in order. */
const SECTION_CARDS: ComponentType<{ data: CompleteAnalytics }>[] = [
  TimeSeriesCard,
  PostingHeatmap,
  PeakTimesCard,
  FollowerGrowthCard,
  InteractionBreakdownCard,
  EngagementByTypeCard,
  ContentTypesCard,
  EngagementDistributionCard,
  // Full width after six one-column cards: no row is left ragged at 2 or 3 columns.
  WordsCard,
  HashtagsCard,
  LanguagesCard,
  ViralityCard,
  VelocityCard,
  ThreadPerformanceCard,
  MediaCard,
  TopTweetsCard,
];

/** Every section of one payload: headline numbers, then the charts and breakdowns. */
export function AnalyticsSections({ data }: { data: CompleteAnalytics }) {
  return (
    <Stack gap="md">
      <SummaryCards data={data} />
      <SimpleGrid type="container" cols={SECTION_COLUMNS} spacing="md">
        {SECTION_CARDS.map((Card, index) => (
          <Card key={index} data={data} />
        ))}
      </SimpleGrid>
    </Stack>
  );
}

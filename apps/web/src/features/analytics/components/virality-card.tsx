import type { CompleteAnalytics } from '@perch/shared';
import { formatDecimal, formatInteger, formatPercent, plural } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { SectionCard } from './section-card';
import { StatTileList, StatTiles, type StatItem } from './stat-tile';

/** A factor: '36.9x'. */
const formatFactor = (value: number | null) => `${formatDecimal(value)}x`;

function viralityItems(data: CompleteAnalytics): StatItem[] {
  const viral = data.viral;
  return [
    {
      label: 'Viral score',
      value: viral.score,
      format: formatPercent,
      definition: METRIC_DEFINITIONS.viralScore,
      hint: 'of posts went viral',
    },
    {
      label: 'Viral posts',
      value: viral.viral_tweet_count,
      format: formatInteger,
      definition: METRIC_DEFINITIONS.viralCount,
      hint: `of ${plural(data.summary.total_tweets, 'post')}`,
    },
    {
      label: 'Viral threshold',
      value: viral.threshold,
      format: formatDecimal,
      definition: METRIC_DEFINITIONS.viralThreshold,
      hint: 'engagement',
    },
    {
      label: 'Amplification',
      value: viral.amplification_factor,
      format: formatFactor,
      definition: METRIC_DEFINITIONS.amplificationFactor,
      hint: 'shares per post',
    },
    {
      label: 'Viral coefficient',
      value: viral.coefficient,
      format: formatDecimal,
      definition: METRIC_DEFINITIONS.viralCoefficient,
      hint: 'shares per like',
    },
    {
      label: 'Network reach',
      value: viral.network_amplification,
      format: formatPercent,
      definition: METRIC_DEFINITIONS.networkAmplification,
      hint: 'shares per follower',
    },
  ];
}

/** Viral posts and how far the handle's posts travel. */
export function ViralityCard({ data }: { data: CompleteAnalytics }) {
  return (
    <SectionCard title="Virality" definition={METRIC_DEFINITIONS.viral} testId="analytics-virality">
      <StatTiles wide>
        <StatTileList items={viralityItems(data)} />
      </StatTiles>
    </SectionCard>
  );
}

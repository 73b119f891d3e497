import type { CompleteAnalytics } from '@perch/shared';
import { formatDecimal, formatInteger, formatPercent, plural } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { SectionCard } from './section-card';
import { StatTile, StatTiles } from './stat-tile';

/** Viral posts and how far the handle's posts travel. */
export function ViralityCard({ data }: { data: CompleteAnalytics }) {
  const viral = data.viral;
  return (
    <SectionCard title="Virality" definition={METRIC_DEFINITIONS.viral} testId="analytics-virality">
      <StatTiles wide>
        <StatTile
          label="Viral score"
          value={formatPercent(viral.score)}
          rawValue={viral.score}
          definition={METRIC_DEFINITIONS.viralScore}
          hint="of posts went viral"
        />
        <StatTile
          label="Viral posts"
          value={formatInteger(viral.viral_tweet_count)}
          rawValue={viral.viral_tweet_count}
          definition={METRIC_DEFINITIONS.viralCount}
          hint={`of ${plural(data.summary.total_tweets, 'post')}`}
        />
        <StatTile
          label="Viral threshold"
          value={formatDecimal(viral.threshold)}
          rawValue={viral.threshold}
          definition={METRIC_DEFINITIONS.viralThreshold}
          hint="engagement"
        />
        <StatTile
          label="Amplification"
          value={`${formatDecimal(viral.amplification_factor)}x`}
          rawValue={viral.amplification_factor}
          definition={METRIC_DEFINITIONS.amplificationFactor}
          hint="shares per post"
        />
        <StatTile
          label="Viral coefficient"
          value={formatDecimal(viral.coefficient)}
          rawValue={viral.coefficient}
          definition={METRIC_DEFINITIONS.viralCoefficient}
          hint="shares per like"
        />
        <StatTile
          label="Network reach"
          value={formatPercent(viral.network_amplification)}
          rawValue={viral.network_amplification}
          definition={METRIC_DEFINITIONS.networkAmplification}
          hint="shares per follower"
        />
      </StatTiles>
    </SectionCard>
  );
}

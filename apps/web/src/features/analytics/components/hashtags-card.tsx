import type { CompleteAnalytics } from '@perch/shared';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { RankedBars } from './ranked-bars';
import { SectionCard, SectionEmpty } from './section-card';

/** How many hashtags the card lists (the payload holds up to 20). */
export const HASHTAGS_SHOWN = 10;

/** The most used hashtags as bars. */
export function HashtagsCard({ data }: { data: CompleteAnalytics }) {
  const tags = data.hashtags.hashtags.slice(0, HASHTAGS_SHOWN);
  return (
    <SectionCard
      title="Hashtags"
      definition={METRIC_DEFINITIONS.hashtags}
      subtitle={tags.length > 0 ? 'Posts using each tag' : undefined}
      testId="analytics-hashtags"
    >
      {tags.length === 0 ? (
        <SectionEmpty>No hashtags in this period.</SectionEmpty>
      ) : (
        <RankedBars
          data={tags.map((tag) => ({ name: `#${tag.tag}`, value: tag.count }))}
          barColor="cyan.8"
          barsLabel="Hashtag"
          valueLabel="Posts"
        />
      )}
    </SectionCard>
  );
}

import { BarsList } from '@mantine/charts';
import type { CompleteAnalytics } from '@perch/shared';
import { formatInteger } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { SectionCard, SectionEmpty } from './section-card';

/** How many words the card lists (the payload holds up to 30), as many as the hashtags card. */
export const WORDS_SHOWN = 10;

/** The most used words of the period's posts as ranked bars, with how often each was used. */
export function WordsCard({ data }: { data: CompleteAnalytics }) {
  const words = data.words.words.slice(0, WORDS_SHOWN);
  return (
    <SectionCard
      title="Top words"
      definition={METRIC_DEFINITIONS.words}
      subtitle={words.length > 0 ? 'Times each word was used' : undefined}
      testId="analytics-words"
    >
      {words.length === 0 ? (
        <SectionEmpty>
          No words to count in this period: the posts hold only links, mentions, hashtags or very
          common words.
        </SectionEmpty>
      ) : (
        <BarsList
          data={words.map((entry) => ({ name: entry.word, value: entry.count }))}
          valueFormatter={formatInteger}
          barColor="violet.8"
          barHeight={26}
          barGap={6}
          barsLabel="Word"
          valueLabel="Uses"
          autoContrast
        />
      )}
    </SectionCard>
  );
}

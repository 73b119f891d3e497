import { Box, SimpleGrid } from '@mantine/core';
import type { CompleteAnalytics, Words } from '@perch/shared';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { RankedBars } from './ranked-bars';
import { SectionCard, SectionEmpty } from './section-card';

/** Words listed per column: the first column everywhere, the second from tablet width up. */
export const WORDS_PER_COLUMN = 10;

type WordCount = Words['words'][number];

/** Width kept for the count and the gap beside each bar. */
const VALUE_ROOM = '4rem';

/** One column of ranked bars, sized against the most used word of the whole card. */
function WordBars({ words, max }: { words: readonly WordCount[]; max: number }) {
  return (
    <RankedBars
      data={words.map((entry) => ({ name: entry.word, value: entry.count }))}
      // Linear in the count: the value column's room is kept aside instead of squeezing the
      // longest bars (a bar of 100% would otherwise shrink to fit beside its number).
      getBarProps={(bar) => ({
        style: {
          width: `calc((100% - ${VALUE_ROOM}) * ${max > 0 ? bar.value / max : 0})`,
          flexShrink: 0,
        },
      })}
      barColor="violet.8"
      barsLabel="Word"
      valueLabel="Uses"
    />
  );
}

/**
 * The most used words of the period's posts as ranked bars with how often each was used: 20 in
 * two columns on wider screens, the first 10 on a phone.
 */
export function WordsCard({ data }: { data: CompleteAnalytics }) {
  const words = data.words.words.slice(0, 2 * WORDS_PER_COLUMN);
  const first = words.slice(0, WORDS_PER_COLUMN);
  const second = words.slice(WORDS_PER_COLUMN);
  const max = words[0]?.count ?? 0;
  return (
    <SectionCard
      title="Top words"
      definition={METRIC_DEFINITIONS.words}
      subtitle={words.length > 0 ? 'Times each word was used' : undefined}
      fullWidth
      testId="analytics-words"
    >
      {words.length === 0 ? (
        <SectionEmpty>
          No words to count in this period: the posts hold only links, mentions, hashtags or very
          common words.
        </SectionEmpty>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: second.length > 0 ? 2 : 1 }} spacing="xl">
          <WordBars words={first} max={max} />
          {second.length > 0 ? (
            <Box visibleFrom="sm">
              <WordBars words={second} max={max} />
            </Box>
          ) : null}
        </SimpleGrid>
      )}
    </SectionCard>
  );
}

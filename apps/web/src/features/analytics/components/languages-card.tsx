import { DonutChart } from '@mantine/charts';
import { Box, Group, Stack, Text } from '@mantine/core';
import type { CompleteAnalytics } from '@perch/shared';
import { categoryColor } from '../utils/chart-colors';
import { formatInteger, formatPercent, languageName } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { LegendItem } from './legend-item';
import { SectionCard, SectionEmpty } from './section-card';

/** Languages named separately; the rest are summed as 'Other'. */
export const LANGUAGES_SHOWN = 5;

interface LanguageSlice {
  name: string;
  value: number;
  percentage: number;
  color: string;
}

/** The largest languages and one 'Other' slice for the rest. */
export function languageSlices(data: CompleteAnalytics): LanguageSlice[] {
  const languages = data.languages.languages;
  const named = languages.slice(0, LANGUAGES_SHOWN).map((entry, index) => ({
    name: languageName(entry.lang),
    value: entry.count,
    percentage: entry.percentage,
    color: categoryColor(index),
  }));
  const rest = languages.slice(LANGUAGES_SHOWN);
  if (rest.length === 0) return named;
  return [
    ...named,
    {
      name: 'Other',
      value: rest.reduce((sum, entry) => sum + entry.count, 0),
      percentage: rest.reduce((sum, entry) => sum + entry.percentage, 0),
      color: 'gray.6',
    },
  ];
}

/** Posts per language: a donut and its legend with shares. */
export function LanguagesCard({ data }: { data: CompleteAnalytics }) {
  const slices = languageSlices(data);
  return (
    <SectionCard
      title="Languages"
      definition={METRIC_DEFINITIONS.languages}
      testId="analytics-languages"
    >
      {slices.length === 0 ? (
        <SectionEmpty>No posts in this period.</SectionEmpty>
      ) : (
        <Group gap="lg" wrap="nowrap" align="center">
          <DonutChart
            data={slices.map(({ name, value, color }) => ({ name, value, color }))}
            size={132}
            thickness={18}
            paddingAngle={2}
            withTooltip
            tooltipDataSource="segment"
            valueFormatter={formatInteger}
            aria-label="Posts per language"
            style={{ flexShrink: 0 }}
          />
          <Stack gap={6} style={{ flex: 1, minWidth: 0 }} component="ul" m={0} p={0}>
            {slices.map((slice) => (
              <LegendItem key={slice.name} color={slice.color} label={slice.name} truncate>
                <Box ta="right">
                  <Text size="sm" fw={600} span>
                    {formatPercent(slice.percentage)}
                  </Text>
                  <Text size="xs" c="dimmed" span ml={6}>
                    {formatInteger(slice.value)}
                  </Text>
                </Box>
              </LegendItem>
            ))}
          </Stack>
        </Group>
      )}
    </SectionCard>
  );
}

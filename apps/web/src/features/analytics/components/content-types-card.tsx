import { DonutChart } from '@mantine/charts';
import { Group, SimpleGrid, Stack, Text } from '@mantine/core';
import {
  CONTENT_TYPES,
  type CompleteAnalytics,
  type ContentType,
  type ContentTypes,
} from '@perch/shared';
import { categoryColor } from '../utils/chart-colors';
import { formatInteger, formatPercent } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { LegendItem } from './legend-item';
import { SectionCard, SectionEmpty } from './section-card';
import { StatTileList, type StatItem } from './stat-tile';

export const CONTENT_TYPE_LABELS: Record<ContentType, string> = {
  text: 'Text',
  image: 'Image',
  video: 'Video',
  link: 'Link',
};

/** The handle's replies, quotes and retweets, beside the content types. */
function otherPostItems(types: ContentTypes): StatItem[] {
  const item = (label: string, value: number): StatItem => ({
    label,
    value,
    format: formatInteger,
    definition: METRIC_DEFINITIONS.contentTypes,
  });
  return [
    item('Replies', types.replies),
    item('Quotes', types.quotes),
    item('Retweets', types.retweets),
  ];
}

/** Posts by content type (a donut), plus the handle's retweets, replies and quotes. */
export function ContentTypesCard({ data }: { data: CompleteAnalytics }) {
  const types = data.contentTypes;
  const total = CONTENT_TYPES.reduce((sum, type) => sum + types[type], 0);
  const slices = CONTENT_TYPES.map((type, index) => ({
    name: CONTENT_TYPE_LABELS[type],
    value: types[type],
    color: categoryColor(index),
  }));
  return (
    <SectionCard
      title="Content types"
      definition={METRIC_DEFINITIONS.contentTypes}
      testId="analytics-content-types"
    >
      {total === 0 ? (
        <SectionEmpty>No posts in this period.</SectionEmpty>
      ) : (
        <Stack gap="md">
          <Group gap="lg" wrap="nowrap">
            <DonutChart
              data={slices.filter((slice) => slice.value > 0)}
              size={120}
              thickness={16}
              paddingAngle={2}
              tooltipDataSource="segment"
              valueFormatter={formatInteger}
              aria-label="Posts per content type"
              style={{ flexShrink: 0 }}
            />
            <Stack gap={6} style={{ flex: 1 }} component="ul" m={0} p={0}>
              {slices.map((slice) => (
                <LegendItem key={slice.name} color={slice.color} label={slice.name}>
                  <Text size="sm" fw={600}>
                    {formatInteger(slice.value)}
                  </Text>
                  <Text size="xs" c="dimmed" w={44} ta="right">
                    {formatPercent((slice.value / total) * 100)}
                  </Text>
                </LegendItem>
              ))}
            </Stack>
          </Group>
          <SimpleGrid cols={3} spacing="xs">
            <StatTileList items={otherPostItems(types)} />
          </SimpleGrid>
        </Stack>
      )}
    </SectionCard>
  );
}

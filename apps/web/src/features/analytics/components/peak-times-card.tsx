import { Badge, Box, Group, Progress, Stack, Text, ThemeIcon } from '@mantine/core';
import type { CompleteAnalytics } from '@perch/shared';
import { formatHour, plural, shortWeekday } from '../utils/format';
import { METRIC_DEFINITIONS } from '../utils/metric-definitions';
import { SectionCard, SectionEmpty } from './section-card';

/** The busiest weekday-and-hour cells, the busiest hours and the weekdays by posts. */
export function PeakTimesCard({ data }: { data: CompleteAnalytics }) {
  const { peak_times } = data.summary;
  const { peak_hours, peak_days } = data.postingPatterns;
  const maxDay = Math.max(1, ...peak_days.map((entry) => entry.count));
  return (
    <SectionCard
      title="Peak times"
      definition={METRIC_DEFINITIONS.peakTimes}
      subtitle={`In ${data.timezone}`}
      testId="analytics-peak-times"
    >
      {peak_times.length === 0 ? (
        <SectionEmpty>No posts in this period.</SectionEmpty>
      ) : (
        <Stack gap="md">
          <Stack gap={6} component="ol" m={0} p={0} style={{ listStyle: 'none' }}>
            {peak_times.map((peak, index) => (
              <Group key={`${peak.day}-${peak.hour}`} component="li" gap="sm" wrap="nowrap">
                <ThemeIcon variant="light" radius="xl" size="md" aria-hidden>
                  <Text size="xs" fw={700}>
                    {index + 1}
                  </Text>
                </ThemeIcon>
                <Text size="sm" fw={600} style={{ flex: 1 }}>
                  {peak.day} · {formatHour(peak.hour)}
                </Text>
                <Text size="sm" c="dimmed">
                  {plural(peak.count, 'post')}
                </Text>
              </Group>
            ))}
          </Stack>
          <div>
            <Text size="xs" c="dimmed" mb={6}>
              Busiest hours
            </Text>
            <Group gap={6}>
              {peak_hours.map((hour) => (
                <Badge key={hour} variant="light" radius="sm" tt="none">
                  {formatHour(hour)}
                </Badge>
              ))}
            </Group>
          </div>
          <div>
            <Text size="xs" c="dimmed" mb={6}>
              Posts by weekday
            </Text>
            <Stack gap={4}>
              {peak_days.map((entry) => (
                <Group key={entry.day} gap="xs" wrap="nowrap">
                  <Text size="xs" w={32} c="dimmed">
                    {shortWeekday(entry.day)}
                  </Text>
                  <Box style={{ flex: 1 }}>
                    <Progress
                      value={(entry.count / maxDay) * 100}
                      size="sm"
                      radius="xl"
                      aria-label={`${entry.day}: ${plural(entry.count, 'post')}`}
                    />
                  </Box>
                  <Text size="xs" w={36} ta="right" style={{ fontVariantNumeric: 'tabular-nums' }}>
                    {entry.count}
                  </Text>
                </Group>
              ))}
            </Stack>
          </div>
        </Stack>
      )}
    </SectionCard>
  );
}

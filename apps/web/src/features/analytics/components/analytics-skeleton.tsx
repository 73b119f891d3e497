import { Card, Group, SimpleGrid, Skeleton, Stack } from '@mantine/core';
import { SECTION_COLUMNS } from './analytics-sections';
import { SUMMARY_COLUMNS } from './summary-cards';

const SUMMARY_CARDS = 10;
const SECTION_CARDS = 4;

function CardSkeleton({ height, fullWidth = false }: { height: number; fullWidth?: boolean }) {
  return (
    <Card
      withBorder
      radius="lg"
      p="lg"
      style={fullWidth ? { gridColumn: '1 / -1' } : undefined}
      aria-hidden
    >
      <Skeleton h={12} w="40%" radius="sm" mb="md" />
      <Skeleton h={height} radius="md" />
    </Card>
  );
}

/** Placeholders shaped like the dashboard's cards while the payload loads. */
export function AnalyticsSkeleton() {
  return (
    <Stack gap="md" data-testid="analytics-loading" aria-busy="true" aria-label="Loading analytics">
      <SimpleGrid type="container" cols={SUMMARY_COLUMNS} spacing="md">
        {Array.from({ length: SUMMARY_CARDS }, (_, index) => (
          <Card key={index} withBorder radius="lg" p="md" aria-hidden>
            <Group gap={8}>
              <Skeleton h={22} w={22} radius="md" />
              <Skeleton h={10} w="50%" radius="sm" />
            </Group>
            <Skeleton h={24} w="60%" radius="sm" mt="sm" />
            <Skeleton h={8} w="70%" radius="sm" mt="xs" />
          </Card>
        ))}
      </SimpleGrid>
      <SimpleGrid type="container" cols={SECTION_COLUMNS} spacing="md">
        <CardSkeleton height={240} fullWidth />
        {Array.from({ length: SECTION_CARDS }, (_, index) => (
          <CardSkeleton key={index} height={180} />
        ))}
      </SimpleGrid>
    </Stack>
  );
}

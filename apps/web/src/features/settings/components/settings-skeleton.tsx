import { Card, Group, SimpleGrid, Skeleton, Stack } from '@mantine/core';
import { SETTINGS_GRID_COLUMNS } from './settings-grid';

function CardSkeleton() {
  return (
    <Card withBorder radius="lg" p="lg" aria-hidden>
      <Group gap="sm" mb="lg">
        <Skeleton h={34} w={34} radius="md" />
        <Stack gap={6} style={{ flex: 1 }}>
          <Skeleton h={12} w="35%" radius="sm" />
          <Skeleton h={8} w="60%" radius="sm" />
        </Stack>
      </Group>
      <Skeleton h={10} w="25%" radius="sm" mb={8} />
      <Skeleton h={36} radius="md" mb="md" />
      <Group gap="xs">
        <Skeleton h={30} w={70} radius="md" />
        <Skeleton h={30} w={70} radius="md" />
      </Group>
    </Card>
  );
}

/** Card-shaped placeholders while the settings load. */
export function SettingsSkeleton() {
  return (
    <Stack gap="md" aria-busy="true" aria-label="Loading settings" data-testid="settings-loading">
      <SimpleGrid type="container" cols={SETTINGS_GRID_COLUMNS} spacing="md">
        {Array.from({ length: 4 }, (_, index) => (
          <CardSkeleton key={index} />
        ))}
      </SimpleGrid>
      <Card withBorder radius="lg" p="lg" aria-hidden>
        <Skeleton h={12} w="20%" radius="sm" mb="lg" />
        {Array.from({ length: 3 }, (_, index) => (
          <Skeleton key={index} h={44} radius="md" mb="xs" />
        ))}
      </Card>
    </Stack>
  );
}

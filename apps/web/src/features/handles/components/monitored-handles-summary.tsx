import { Badge, Group, Paper, Stack, Text } from '@mantine/core';
import { MAX_HANDLES_PER_USER } from '@perch/shared';

/**
 * The sidebar's 'Monitored Handles' block. Handles cannot be added yet: the count stays at
 * zero and the note says so, until the collection feature brings the list and the add box.
 */
export function MonitoredHandlesSummary() {
  const handleCount = 0;
  return (
    <Stack gap="xs">
      <Group justify="space-between" wrap="nowrap">
        <Text size="xs" fw={700} tt="uppercase" c="dimmed" lts={0.6}>
          Monitored Handles
        </Text>
        <Badge variant="light" color="gray" size="sm" aria-label="Handles in use">
          {`${handleCount}/${MAX_HANDLES_PER_USER}`}
        </Badge>
      </Group>
      <Paper withBorder radius="md" p="sm" bg="transparent" style={{ borderStyle: 'dashed' }}>
        <Text size="xs" c="dimmed">
          No handles yet. Adding handles arrives with the collection feature.
        </Text>
      </Paper>
    </Stack>
  );
}

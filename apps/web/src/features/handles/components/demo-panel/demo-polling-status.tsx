import { Button, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconActivity } from '@tabler/icons-react';
import type { DemoActivity } from '../../hooks/demo-smart-polling';

export interface DemoPollingStatusProps {
  lastActivity: DemoActivity;
  /** The handle list's current poll interval (ms). */
  handlesInterval: number;
  /** The selected handle's progress poll interval (ms). */
  progressInterval: number;
  onRecordActivity: () => void;
}

function activityText(at: number | null): string {
  return at === null ? 'No activity yet' : new Date(at).toLocaleTimeString('en-US');
}

const seconds = (ms: number) => `${ms / 1_000}s`;

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fw={600} aria-label={label}>
        {value}
      </Text>
      {hint ? (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      ) : null}
    </Stack>
  );
}

/** When the handles and progress last saw activity, how fast they poll, and a way to speed up. */
export function DemoPollingStatus({
  lastActivity,
  handlesInterval,
  progressInterval,
  onRecordActivity,
}: DemoPollingStatusProps) {
  return (
    <Paper withBorder radius="md" p="md" data-testid="demo-polling-status">
      <Group justify="space-between" mb="sm" gap="sm">
        <Stack gap={0}>
          <Text fw={600}>Smart polling</Text>
          <Text size="xs" c="dimmed">
            Polls speed up for 10 s after activity and while a handle collects.
          </Text>
        </Stack>
        <Button
          size="xs"
          variant="light"
          leftSection={<IconActivity size={14} />}
          onClick={onRecordActivity}
        >
          Record Activity
        </Button>
      </Group>
      <SimpleGrid type="container" cols={{ base: 1, '480px': 3 }} spacing="md">
        <Stat label="Handles last activity" value={activityText(lastActivity.handles)} />
        <Stat label="Progress last activity" value={activityText(lastActivity.progress)} />
        <Stat
          label="Current interval"
          value={seconds(handlesInterval)}
          hint={`Handle list; progress every ${seconds(progressInterval)}`}
        />
      </SimpleGrid>
    </Paper>
  );
}

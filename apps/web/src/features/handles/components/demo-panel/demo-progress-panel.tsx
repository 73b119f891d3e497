import { Alert, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import {
  clampProgress,
  isHandleCollecting,
  isProgressComplete,
  isTemporaryHandleId,
  type Handle,
} from '@perch/shared';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { formatCount } from '@/lib/format';
import { backfillProgressQueryOptions } from '../../api/get-backfill-progress';
import { handleKeys } from '../../api/handle-keys';
import { DEMO_TEXTS } from '../../utils/demo-handle';

export interface DemoProgressPanelProps {
  handle: Handle;
  /** How often the progress is polled (ms): the demo's smart-polling interval. */
  interval: number;
}

/** The selected handle's backfill: status, a percent bar and whether analytics are available. */
export function DemoProgressPanel({ handle, interval }: DemoProgressPanelProps) {
  const queryClient = useQueryClient();
  const temporary = isTemporaryHandleId(handle.id);
  const { data: progress, error } = useQuery({
    ...backfillProgressQueryOptions(handle.handle),
    enabled: !temporary,
    refetchInterval: interval,
  });
  const complete = progress !== undefined && isProgressComplete(progress);
  const listBehind = complete && isHandleCollecting(handle);

  useEffect(() => {
    // The backfill ended before the list noticed: fetch the list now, not at its next poll.
    if (listBehind) void queryClient.invalidateQueries({ queryKey: handleKeys.list });
  }, [listBehind, queryClient]);

  const status = progress?.status ?? handle.backfill_status;
  const percent = Math.round(clampProgress(progress?.progress ?? handle.backfill_progress));
  const analyticsAvailable = handle.analytics_available || (complete && progress.hasData);

  return (
    <Paper withBorder radius="md" p="md" data-testid="demo-progress-panel">
      <Stack gap="xs">
        <Group justify="space-between" gap="sm">
          <Text fw={600}>Progress of @{handle.handle}</Text>
          <Text size="sm" c="dimmed" data-testid="demo-progress-status">
            Status: {status}
          </Text>
        </Group>
        <Group gap="sm" wrap="nowrap">
          <Progress
            value={percent}
            size="lg"
            radius="sm"
            animated={!complete && isHandleCollecting(handle)}
            aria-label={`Backfill progress for @${handle.handle}`}
            style={{ flex: 1 }}
          />
          <Text size="sm" fw={600} w={44} ta="right" data-testid="demo-progress-percent">
            {percent}%
          </Text>
        </Group>
        <Group justify="space-between" gap="sm">
          <Text size="sm" data-testid="demo-analytics-available">
            {DEMO_TEXTS.analyticsAvailable(analyticsAvailable)}
          </Text>
          {progress ? (
            <Text size="xs" c="dimmed">
              {`${formatCount(progress.totalTweets)} tweets collected`}
            </Text>
          ) : null}
        </Group>
        {error ? (
          <Alert color="red" variant="light" p="xs">
            {error.message}
          </Alert>
        ) : null}
      </Stack>
    </Paper>
  );
}

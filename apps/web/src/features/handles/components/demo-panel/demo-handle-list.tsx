import { Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { isTemporaryHandleId, type Handle } from '@perch/shared';
import { IconRefresh, IconTrash } from '@tabler/icons-react';
import { DEMO_BADGE_COLORS, DEMO_TEXTS, demoBadge, toDemoHandle } from '../../utils/demo-handle';
import { HandleListStates } from '../handle-list-states';
import { NotificationSwitches, type NotificationSwitchesProps } from '../notification-switches';

export interface DemoHandleListProps {
  handles: readonly Handle[];
  isPending: boolean;
  error: Error | null;
  selectedId: number | null;
  isRefreshing: boolean;
  onRefresh: () => void;
  onSelect: (handle: Handle) => void;
  onRemove: (handle: Handle) => void;
  notifications: Pick<NotificationSwitchesProps, 'isBusy' | 'onToggle'>;
}

interface DemoHandleRowProps {
  handle: Handle;
  selected: boolean;
  onSelect: (handle: Handle) => void;
  onRemove: (handle: Handle) => void;
  notifications: Pick<NotificationSwitchesProps, 'isBusy' | 'onToggle'>;
}

function DemoHandleRow({
  handle,
  selected,
  onSelect,
  onRemove,
  notifications,
}: DemoHandleRowProps) {
  const demo = toDemoHandle(handle);
  const badge = demoBadge(demo);
  const temporary = isTemporaryHandleId(handle.id);
  return (
    <Paper
      component="li"
      withBorder
      radius="md"
      p="sm"
      aria-label={`@${demo.handle}`}
      data-testid="demo-handle-row"
      style={{ borderColor: selected ? 'var(--mantine-primary-color-filled)' : undefined }}
    >
      <Group justify="space-between" align="flex-start" gap="sm" wrap="wrap">
        <Stack gap={2} miw={0}>
          <Group gap="xs" wrap="nowrap">
            <Text fw={600} truncate="end">
              @{demo.handle}
            </Text>
            <Badge
              color={DEMO_BADGE_COLORS[badge]}
              variant="light"
              size="sm"
              radius="sm"
              tt="none"
              data-testid="demo-handle-status"
            >
              {badge}
            </Badge>
          </Group>
          <Text size="xs" c="dimmed">
            {DEMO_TEXTS.counts(demo.tweetsCollected, demo.followersCount)}
          </Text>
        </Stack>
        <Group gap="xs" wrap="nowrap">
          <Button
            size="xs"
            variant={selected ? 'filled' : 'default'}
            aria-pressed={selected}
            onClick={() => onSelect(handle)}
          >
            {selected ? 'Selected' : 'Select'}
          </Button>
          <Button
            size="xs"
            variant="subtle"
            color="red"
            leftSection={<IconTrash size={14} />}
            onClick={() => onRemove(handle)}
            disabled={temporary}
          >
            Remove
          </Button>
        </Group>
      </Group>
      <Group mt={6} justify="flex-end">
        <NotificationSwitches
          handle={handle}
          disabled={temporary}
          isBusy={notifications.isBusy}
          onToggle={notifications.onToggle}
        />
      </Group>
    </Paper>
  );
}

/** 'Handles (n/10)' with Refresh All, and a row per handle with its badge, counts and actions. */
export function DemoHandleList({
  handles,
  isPending,
  error,
  selectedId,
  isRefreshing,
  onRefresh,
  onSelect,
  onRemove,
  notifications,
}: DemoHandleListProps) {
  return (
    <Paper withBorder radius="md" p="md">
      <Group justify="space-between" mb="sm" gap="sm">
        <Text fw={600}>{DEMO_TEXTS.listTitle(handles.length)}</Text>
        <Button
          size="xs"
          variant="default"
          leftSection={<IconRefresh size={14} />}
          onClick={onRefresh}
          loading={isRefreshing}
        >
          Refresh All
        </Button>
      </Group>
      <HandleListStates
        isPending={isPending}
        error={error}
        isEmpty={handles.length === 0}
        emptyText={DEMO_TEXTS.empty}
      />
      {handles.length > 0 ? (
        <Stack component="ul" gap="xs" m={0} p={0} style={{ listStyle: 'none' }}>
          {handles.map((handle) => (
            <DemoHandleRow
              key={handle.id}
              handle={handle}
              selected={handle.id === selectedId}
              onSelect={onSelect}
              onRemove={onRemove}
              notifications={notifications}
            />
          ))}
        </Stack>
      ) : null}
    </Paper>
  );
}

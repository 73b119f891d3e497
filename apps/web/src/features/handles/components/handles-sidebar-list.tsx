import { ActionIcon, Group, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { type Handle } from '@perch/shared';
import { IconPlus } from '@tabler/icons-react';
import { useAddHandleForm } from '../hooks/use-add-handle-form';
import { useHandleListLoad } from '../hooks/use-handle-list-load';
import { useLiveHandle } from '../hooks/use-live-handle';
import { HANDLE_TEXTS } from '../utils/handle-messages';
import { HandleCountBadge } from './handle-count-badge';
import { HandleFormMessage } from './handle-form-message';
import { HandleListLoadStates } from './handle-list-states';
import { HandleStatusBadge } from './handle-status-badge';
import { SampleHandles } from './sample-handles';

export { SUGGESTED_HANDLES } from './sample-handles';

export interface HandlesSidebarListProps {
  /** The handle shown on the dashboard (lower or any case), or null. */
  selectedHandle: string | null;
  onSelect: (handle: string) => void;
}

function SidebarRow({
  handle,
  selected,
  onSelect,
}: {
  handle: Handle;
  selected: boolean;
  onSelect: (handle: string) => void;
}) {
  const live = useLiveHandle(handle);
  return (
    <UnstyledButton
      onClick={() => onSelect(handle.handle)}
      aria-current={selected ? 'true' : undefined}
      data-testid="sidebar-handle"
      display="block"
      w="100%"
      px="sm"
      py={6}
      style={{
        borderRadius: 'var(--mantine-radius-md)',
        background: selected ? 'var(--mantine-primary-color-light)' : undefined,
      }}
    >
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text size="sm" fw={selected ? 600 : 500} truncate="end" miw={0}>
          @{handle.handle}
        </Text>
        <HandleStatusBadge handle={live} compact />
      </Group>
    </UnstyledButton>
  );
}

/**
 * The sidebar's 'Monitored Handles' block (docs/spec-notes.md, Layout): the n/10 count, one row per
 * handle with its status badge (a click selects it), a compact add box and, while the list is
 * empty, 8 sample handles that add with one click.
 */
export function HandlesSidebarList({ selectedHandle, onSelect }: HandlesSidebarListProps) {
  const { handles, load } = useHandleListLoad();
  const list = handles ?? [];
  const form = useAddHandleForm({ handles: list, onAdding: onSelect });
  const selected = selectedHandle?.toLowerCase() ?? null;

  return (
    <Stack gap="xs" data-testid="sidebar-handles">
      <Group justify="space-between" wrap="nowrap">
        <Text size="xs" fw={700} tt="uppercase" c="dimmed" lts={0.6}>
          Monitored Handles
        </Text>
        <HandleCountBadge count={list.length} />
      </Group>

      <HandleListLoadStates load={load} isEmpty={list.length === 0} compact />

      {list.length > 0 ? (
        <Stack gap={2} component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {list.map((handle) => (
            <li key={handle.id}>
              <SidebarRow
                handle={handle}
                selected={selected === handle.handle.toLowerCase()}
                onSelect={onSelect}
              />
            </li>
          ))}
        </Stack>
      ) : null}

      <form onSubmit={form.handleSubmit} aria-label="Quick add handle">
        <Group gap={6} wrap="nowrap" align="flex-start">
          <TextInput
            size="xs"
            placeholder={HANDLE_TEXTS.inputPlaceholder}
            aria-label="Handle to add"
            value={form.input}
            onChange={(event) => form.setInput(event.currentTarget.value)}
            error={form.hint ?? undefined}
            leftSection={<Text size="xs">@</Text>}
            style={{ flex: 1 }}
            autoComplete="off"
          />
          <ActionIcon
            type="submit"
            size={30}
            variant="filled"
            aria-label="Quick add"
            disabled={!form.canSubmit}
            loading={form.isAdding}
          >
            <IconPlus size={16} />
          </ActionIcon>
        </Group>
      </form>
      <HandleFormMessage message={form.message} compact />

      {!load.isLoading && !load.failure && list.length === 0 ? (
        <SampleHandles compact disabled={form.busy} onAdd={(name) => form.submit(name)} />
      ) : null}
    </Stack>
  );
}

import { Box, Card, Group, SimpleGrid, Stack, Title } from '@mantine/core';
import type { ForwardingSettings, Handle } from '@perch/shared';
import { useState } from 'react';
import { useAddHandleForm } from '../hooks/use-add-handle-form';
import { useHandleListLoad } from '../hooks/use-handle-list-load';
import { useHandleRemoval } from '../hooks/use-handle-removal';
import { useNotificationToggles } from '../hooks/use-notification-toggles';
import { useSwitchOutcomes } from '../hooks/use-switch-outcomes';
import { SUCCESS_MESSAGE_MS } from '../utils/handle-messages';
import { AddHandleForm } from './add-handle-form';
import { HandleCountBadge } from './handle-count-badge';
import { HandleListLoadStates } from './handle-list-states';
import { HandleRow } from './handle-row';
import { NotificationFilterModal } from './notification-filter-modal';
import { RecentTweetsModal } from './recent-tweets-modal';
import { RemoveHandleModal } from './remove-handle-modal';
import { SampleHandles } from './sample-handles';

export interface HandlePanelProps {
  /** The handle shown on the dashboard, or null. */
  selectedHandle: string | null;
  /** Selects a handle, or none. */
  onSelect: (handle: string | null) => void;
  /**
   * Whether the panel announces the selected handle's completed collection too (default). The
   * dashboard turns it off: its analytics view announces that one above the numbers.
   */
  announceSelectedCompletion?: boolean;
  /**
   * The user's settings: a switched-on channel that cannot deliver says why under the switch.
   * Until they load (or without them) nothing is said.
   */
  forwarding?: ForwardingSettings;
}

/**
 * The dashboard's handle-management panel (docs/spec-notes.md, Main dashboard): the add form with
 * the live duplicate hint and the 7/15-day choice, an inline status message, the handles with their
 * badges and progress, removal behind a confirmation and a modal of recent tweets.
 */
export function HandlePanel({
  selectedHandle,
  onSelect,
  announceSelectedCompletion = true,
  forwarding,
}: HandlePanelProps) {
  const { handles, load } = useHandleListLoad();
  const list = handles ?? [];
  const form = useAddHandleForm({ handles: list, onAdding: onSelect });
  const [tweetsOf, setTweetsOf] = useState<string | null>(null);
  const [filterOf, setFilterOf] = useState<Handle | null>(null);
  const selected = selectedHandle?.toLowerCase() ?? null;
  const { showMessage } = form;
  const removal = useHandleRemoval({ list, selected, onSelect, showMessage });
  // A switch is answered beside it, not at the top of the panel (which would move the list).
  const outcomes = useSwitchOutcomes(showMessage);
  const toggles = useNotificationToggles(outcomes.handleToggleOutcome);
  const notifications = { isBusy: toggles.isBusy, onToggle: toggles.toggle };

  return (
    <Card withBorder radius="lg" p="lg" data-testid="handle-panel">
      <Group justify="space-between" mb="md" wrap="nowrap">
        <Title order={3} size="h4">
          Monitored handles
        </Title>
        <HandleCountBadge count={list.length} />
      </Group>

      <AddHandleForm form={form} />

      <Stack gap="xs" mt="lg">
        <HandleListLoadStates
          load={load}
          isEmpty={list.length === 0}
          emptyText="No handles yet. Add your first handle above."
        />
        {/* On phones the sidebar (and its samples) is folded away: the panel offers them. */}
        {!load.isLoading && !load.failure && list.length === 0 ? (
          <Box hiddenFrom="sm">
            <SampleHandles disabled={form.busy} onAdd={(name) => form.submit(name)} />
          </Box>
        ) : null}
        {list.length > 0 ? (
          <SimpleGrid
            type="container"
            cols={{ base: 1, '640px': 2 }}
            spacing="xs"
            component="ul"
            m={0}
            p={0}
            style={{ listStyle: 'none' }}
          >
            {list.map((handle) => (
              <HandleRow
                key={handle.id}
                handle={handle}
                selected={selected === handle.handle.toLowerCase()}
                busy={form.busy}
                onSelect={onSelect}
                onShowTweets={setTweetsOf}
                onRemove={removal.ask}
                announceCompletion={
                  announceSelectedCompletion || selected !== handle.handle.toLowerCase()
                }
                notifications={notifications}
                onEditFilter={setFilterOf}
                forwarding={forwarding}
                refusal={outcomes.refusalOf(handle.id)}
                onDismissRefusal={outcomes.dismiss}
                success={outcomes.successOf(handle.id)}
              />
            ))}
          </SimpleGrid>
        ) : null}
      </Stack>

      <RemoveHandleModal
        handle={removal.pending}
        explained
        onConfirm={removal.confirm}
        onCancel={removal.cancel}
      />

      <RecentTweetsModal handle={tweetsOf} onClose={() => setTweetsOf(null)} />

      {/* Keyed by handle: each opening starts from that handle's stored filter. */}
      <NotificationFilterModal
        key={filterOf?.id ?? 'closed'}
        handle={filterOf}
        onClose={() => setFilterOf(null)}
        onSaved={(text) => showMessage({ kind: 'success', text }, SUCCESS_MESSAGE_MS)}
      />
    </Card>
  );
}

import { SimpleGrid, Stack, Text } from '@mantine/core';
import { isHandleCollecting, type Handle } from '@perch/shared';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useTimedMessage, type TimedMessage } from '@/lib/use-timed-message';
import { handlesQueryOptions } from '../../api/get-handles';
import { handleKeys } from '../../api/handle-keys';
import { useRemoveHandleMutation } from '../../api/remove-handle';
import { useDemoAddHandleForm } from '../../hooks/demo-add-handle-form';
import { useDemoSmartPolling } from '../../hooks/demo-smart-polling';
import { useNotificationToggles } from '../../hooks/use-notification-toggles';
import {
  ERROR_MESSAGE_MS,
  HANDLE_TEXTS,
  SUCCESS_MESSAGE_MS,
  demoRemoveErrorText,
  findHandle,
} from '../../utils/handle-messages';
import { HandleFormMessage } from '../handle-form-message';
import { RemoveHandleModal } from '../remove-handle-modal';
import { DemoAddForm } from './demo-add-form';
import { DemoHandleList } from './demo-handle-list';
import { DemoPollingStatus } from './demo-polling-status';
import { DemoProgressPanel } from './demo-progress-panel';

/**
 * The handles demo of the Admin page (docs/spec-notes.md, Admin screen): the signed-in user's own
 * handles through the handles API, with smart polling, the add form, the list with selection,
 * removal and the notification switches, and the selected handle's progress.
 */
export function DemoPanel() {
  const queryClient = useQueryClient();
  const { lastActivity, recordActivity, intervalOf } = useDemoSmartPolling();
  const handlesQuery = useQuery({
    ...handlesQueryOptions(),
    refetchInterval: (query) =>
      intervalOf('handles', query.state.data?.some(isHandleCollecting) ?? false),
  });
  const handles = handlesQuery.data ?? [];
  const [selectedName, setSelectedName] = useState<string | null>(null);
  const [pendingRemoval, setPendingRemoval] = useState<Handle | null>(null);
  const [refreshing, setRefreshing] = useState(false);
  const removeMutation = useRemoveHandleMutation();

  const { message, show, clear } = useTimedMessage();
  const showMessage = useCallback(
    (next: TimedMessage) =>
      show(next, next.kind === 'error' ? ERROR_MESSAGE_MS : SUCCESS_MESSAGE_MS),
    [show],
  );
  const toggles = useNotificationToggles(showMessage);
  const form = useDemoAddHandleForm({
    handles,
    onMessage: showMessage,
    onAdding: (name) => {
      recordActivity();
      setSelectedName(name);
    },
  });

  // With no (remaining) selection, the first handle is the selected one.
  const selected = (selectedName ? findHandle(handles, selectedName) : undefined) ?? handles[0];
  const handlesInterval = intervalOf('handles', handles.some(isHandleCollecting));
  const progressInterval = intervalOf(
    'progress',
    selected !== undefined && isHandleCollecting(selected),
  );

  const handleSelect = (handle: Handle) => {
    setSelectedName(handle.handle);
    recordActivity(['progress']);
  };

  const handleRefresh = async () => {
    recordActivity();
    setRefreshing(true);
    try {
      await queryClient.invalidateQueries({ queryKey: handleKeys.all });
    } finally {
      setRefreshing(false);
    }
  };

  const handleConfirmRemove = () => {
    const target = pendingRemoval;
    setPendingRemoval(null);
    if (!target) return;
    if (selected?.id === target.id) setSelectedName(null);
    recordActivity(['handles']);
    removeMutation.mutate(target, {
      onSuccess: () => showMessage({ kind: 'success', text: HANDLE_TEXTS.removed(target.handle) }),
      onError: (error) => showMessage({ kind: 'error', text: demoRemoveErrorText(error) }),
    });
  };

  return (
    <Stack gap="md" mt="md" data-testid="demo-panel">
      <DemoPollingStatus
        lastActivity={lastActivity}
        handlesInterval={handlesInterval}
        progressInterval={progressInterval}
        onRecordActivity={() => recordActivity()}
      />
      <DemoAddForm form={form} />
      <HandleFormMessage message={message} onClose={clear} />
      <SimpleGrid type="container" cols={{ base: 1, '900px': 2 }} spacing="md">
        <DemoHandleList
          handles={handles}
          isPending={handlesQuery.isPending}
          error={handlesQuery.error}
          selectedId={selected?.id ?? null}
          isRefreshing={refreshing}
          onRefresh={() => void handleRefresh()}
          onSelect={handleSelect}
          onRemove={setPendingRemoval}
          notifications={{ isBusy: toggles.isBusy, onToggle: toggles.toggle }}
        />
        {selected ? (
          <DemoProgressPanel handle={selected} interval={progressInterval} />
        ) : (
          <Text size="sm" c="dimmed">
            Select a handle to follow its progress.
          </Text>
        )}
      </SimpleGrid>

      <RemoveHandleModal
        handle={pendingRemoval}
        onConfirm={handleConfirmRemove}
        onCancel={() => setPendingRemoval(null)}
      />
    </Stack>
  );
}

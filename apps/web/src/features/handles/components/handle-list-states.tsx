import { Group, Loader, Text } from '@mantine/core';
import { SectionError } from '@/components/section-states';
import type { HandleListLoadState } from '../hooks/use-handle-list-load';

export interface HandleListLoadStatesProps {
  /** The list's load, from `useHandleListLoad`; with `retry`, the failure offers Retry. */
  load: HandleListLoadState & { retry?: () => void };
  /** Whether the list has no handles. */
  isEmpty: boolean;
  /** The line of an empty list, once it has loaded; none to show nothing. */
  emptyText?: string;
  /** The sidebar's smaller type. */
  compact?: boolean;
}

/**
 * What a list of the user's handles shows while it loads (with the failed attempt while it is
 * tried again: a quiet line), once it gave up (a red alert), and when it is empty.
 */
export function HandleListLoadStates({
  load,
  isEmpty,
  emptyText,
  compact = false,
}: HandleListLoadStatesProps) {
  const size = compact ? 'xs' : 'sm';
  const inset = compact ? 'sm' : undefined;
  return (
    <>
      {load.isLoading ? (
        <Group gap="xs" px={inset}>
          <Loader size={compact ? 'xs' : 'sm'} />
          <Text size={size} c="dimmed">
            Loading handles...
          </Text>
        </Group>
      ) : null}
      {load.retryText ? (
        <Text size="xs" c="dimmed" px={inset} role="status">
          {load.retryText}
        </Text>
      ) : null}
      {/* Shown once the load gave up, never while a retry runs: Retry needs no spinner. */}
      {load.failure ? (
        <SectionError
          title={load.failure.title}
          reason={load.failure.message}
          onRetry={load.retry}
          compact={compact}
        />
      ) : null}
      {emptyText && !load.isLoading && !load.failure && isEmpty ? (
        <Text size={size} c="dimmed">
          {emptyText}
        </Text>
      ) : null}
    </>
  );
}

export interface HandleListStatesProps {
  isPending: boolean;
  error: Error | null;
  /** Whether the list has no handles. */
  isEmpty: boolean;
  /** The line of an empty list, once it has loaded. */
  emptyText: string;
}

/**
 * The same states for a list that reads the query itself (the demo panel): loading, 'Failed to
 * load handles' with the error, or empty.
 */
export function HandleListStates({ isPending, error, isEmpty, emptyText }: HandleListStatesProps) {
  const load: HandleListLoadState = {
    isLoading: isPending,
    retryText: null,
    failure: error ? { title: 'Failed to load handles', message: error.message } : null,
    clearsItself: false,
  };
  return <HandleListLoadStates load={load} isEmpty={isEmpty} emptyText={emptyText} />;
}

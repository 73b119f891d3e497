import { Card } from '@mantine/core';
import {
  isHandleCollecting,
  isTemporaryHandleId,
  type ForwardingSettings,
  type Handle,
} from '@perch/shared';
import { useLiveHandle } from '../hooks/use-live-handle';
import { ForwardingNotes, type SwitchRefusal } from './forwarding-notes';
import { HandleRowFilter } from './handle-row-filter';
import { HandleRowHeader } from './handle-row-header';
import { HandleRowProgress, HandleRowStatus } from './handle-row-status';
import type { NotificationSwitchesProps } from './notification-switches';

export interface HandleRowProps {
  handle: Handle;
  selected: boolean;
  /** Another change to the list is running. */
  busy: boolean;
  onSelect: (handle: string) => void;
  onShowTweets: (handle: string) => void;
  onRemove: (handle: Handle) => void;
  /** Its collection completed while on screen. */
  onCompleted: (handle: string) => void;
  notifications: Pick<NotificationSwitchesProps, 'isBusy' | 'onToggle'>;
  onEditFilter: (handle: Handle) => void;
  forwarding: ForwardingSettings | undefined;
  /** The last refused switch of this handle. */
  refusal: SwitchRefusal | null;
  onDismissRefusal: (id: number) => void;
}

/**
 * One handle of the panel's list: name and counts, its actions, the collection badge and the
 * switches, why a switch will not deliver, the filter, and the progress while it is collected.
 */
export function HandleRow({
  handle,
  selected,
  busy,
  onSelect,
  onShowTweets,
  onRemove,
  onCompleted,
  onEditFilter,
  notifications,
  forwarding,
  refusal,
  onDismissRefusal,
}: HandleRowProps) {
  const live = useLiveHandle(handle, onCompleted);
  const temporary = isTemporaryHandleId(handle.id);
  return (
    <Card
      component="li"
      withBorder
      radius="md"
      p="sm"
      data-testid="handle-row"
      aria-label={`@${handle.handle}`}
      style={{
        borderColor: selected ? 'var(--mantine-primary-color-filled)' : undefined,
      }}
    >
      <HandleRowHeader
        handle={handle}
        live={live}
        selected={selected}
        temporary={temporary}
        busy={busy}
        onSelect={onSelect}
        onShowTweets={onShowTweets}
        onRemove={onRemove}
      />
      <HandleRowStatus
        handle={handle}
        live={live}
        temporary={temporary}
        notifications={notifications}
        forwarding={forwarding}
      />
      <ForwardingNotes
        handle={handle}
        settings={forwarding}
        refusal={refusal}
        onDismissRefusal={() => onDismissRefusal(handle.id)}
      />
      <HandleRowFilter handle={handle} temporary={temporary} onEditFilter={onEditFilter} />
      {isHandleCollecting(live) ? <HandleRowProgress handle={handle} live={live} /> : null}
    </Card>
  );
}

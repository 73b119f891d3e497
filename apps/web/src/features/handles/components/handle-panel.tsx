import {
  ActionIcon,
  Box,
  Button,
  Card,
  Group,
  Input,
  Progress,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import {
  BACKFILL_DAY_CHOICES,
  DEFAULT_BACKFILL_DAYS,
  clampProgress,
  isHandleCollecting,
  isTemporaryHandleId,
  type ForwardingSettings,
  type Handle,
} from '@perch/shared';
import { IconFilter, IconMessage2, IconPlus, IconTrash } from '@tabler/icons-react';
import { useCallback, useState } from 'react';
import { formatCount } from '@/lib/format';
import { useRemoveHandleMutation } from '../api/remove-handle';
import { useAddHandleForm } from '../hooks/use-add-handle-form';
import { useHandleListLoad } from '../hooks/use-handle-list-load';
import { useLiveHandle } from '../hooks/use-live-handle';
import { useNotificationToggles, type ToggleOutcome } from '../hooks/use-notification-toggles';
import { filterSummary } from '../utils/filter-summary';
import {
  COMPLETED_MESSAGE_MS,
  ERROR_MESSAGE_MS,
  HANDLE_TEXTS,
  SUCCESS_MESSAGE_MS,
  removeErrorText,
} from '../utils/handle-messages';
import { HandleCountBadge } from './handle-count-badge';
import { HandleFormMessage } from './handle-form-message';
import { HandleListLoadStates } from './handle-list-states';
import { HandleStatusBadge } from './handle-status-badge';
import {
  ForwardingNotes,
  blockedChannels,
  forwardingNoteId,
  type SwitchRefusal,
} from './forwarding-notes';
import { NotificationFilterModal } from './notification-filter-modal';
import { NotificationSwitches, type NotificationSwitchesProps } from './notification-switches';
import { RecentTweetsModal } from './recent-tweets-modal';
import { RemoveHandleModal } from './remove-handle-modal';
import { SampleHandles } from './sample-handles';

/** Labels of the backfill period choice: 7 or 15 days, 15 recommended. */
export function backfillDaysLabel(days: number): string {
  return days === DEFAULT_BACKFILL_DAYS ? `${days} days (recommended)` : `${days} days`;
}

const DAY_OPTIONS = BACKFILL_DAY_CHOICES.map((days) => ({
  value: String(days),
  label: backfillDaysLabel(days),
}));

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

interface HandleRowProps {
  handle: Handle;
  selected: boolean;
  busy: boolean;
  onSelect: (handle: string) => void;
  onShowTweets: (handle: string) => void;
  onRemove: (handle: Handle) => void;
  onCompleted: (handle: string) => void;
  notifications: Pick<NotificationSwitchesProps, 'isBusy' | 'onToggle'>;
  onEditFilter: (handle: Handle) => void;
  forwarding: ForwardingSettings | undefined;
  refusal: SwitchRefusal | null;
  onDismissRefusal: (id: number) => void;
}

function HandleRow({
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
  const filtered = filterSummary(handle.notification_filter);
  const blocked = blockedChannels(handle, forwarding);
  // A reason shared by both switches is written once: both point at that one note.
  const describedBy: NotificationSwitchesProps['describedBy'] = (channel) => {
    const text = blocked.find((note) => note.channel === channel)?.text;
    const first = blocked.find((note) => note.text === text);
    return first ? forwardingNoteId(handle.id, first.channel) : undefined;
  };
  const temporary = isTemporaryHandleId(handle.id);
  const collecting = isHandleCollecting(live);
  const tweets = live.total_tweets_collected;
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
      <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
        <UnstyledButton
          onClick={() => onSelect(handle.handle)}
          aria-current={selected ? 'true' : undefined}
          aria-label={`Select @${handle.handle}`}
          miw={0}
          style={{ flex: 1 }}
        >
          <Text fw={600} truncate="end">
            @{handle.handle}
          </Text>
          <Text size="xs" c="dimmed">
            {`${formatCount(tweets)} ${tweets === 1 ? 'tweet' : 'tweets'} · ${handle.backfill_days} days`}
            {live.followers_count !== null
              ? ` · ${formatCount(live.followers_count)} followers`
              : ''}
          </Text>
        </UnstyledButton>
        <Group gap={4} wrap="nowrap">
          <Tooltip label="Recent tweets">
            <ActionIcon
              variant="subtle"
              aria-label={`Recent tweets from @${handle.handle}`}
              onClick={() => onShowTweets(handle.handle)}
              disabled={temporary}
            >
              <IconMessage2 size={18} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label="Remove">
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`Remove @${handle.handle}`}
              onClick={() => onRemove(handle)}
              disabled={temporary || busy}
            >
              <IconTrash size={18} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>
      <Group mt={6} justify="space-between" gap="xs" wrap="wrap">
        <Box>
          <HandleStatusBadge handle={live} />
        </Box>
        <NotificationSwitches
          handle={handle}
          disabled={temporary}
          isBusy={notifications.isBusy}
          onToggle={notifications.onToggle}
          describedBy={describedBy}
        />
      </Group>
      <ForwardingNotes
        handle={handle}
        settings={forwarding}
        refusal={refusal}
        onDismissRefusal={() => onDismissRefusal(handle.id)}
      />
      <Group mt={4} gap="xs" justify="space-between" wrap="nowrap">
        {filtered ? (
          <Group gap={4} wrap="nowrap" miw={0} data-testid="filter-summary">
            <IconFilter size={12} color="var(--mantine-color-teal-4)" aria-hidden />
            <Text size="xs" c="dimmed" truncate="end" title={filtered}>
              {filtered}
            </Text>
          </Group>
        ) : (
          <span />
        )}
        <Button
          size="compact-xs"
          variant="subtle"
          color={filtered ? 'teal' : 'gray'}
          leftSection={filtered ? undefined : <IconFilter size={12} />}
          aria-label={`Notification filter for @${handle.handle}`}
          onClick={() => onEditFilter(handle)}
          disabled={temporary}
          style={{ flexShrink: 0 }}
        >
          {filtered ? 'Edit filter' : 'Filter'}
        </Button>
      </Group>
      {collecting ? (
        <Progress
          mt="xs"
          size="sm"
          value={clampProgress(live.backfill_progress)}
          animated
          striped
          aria-label={`Backfill progress for @${handle.handle}`}
        />
      ) : null}
    </Card>
  );
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
  const removeMutation = useRemoveHandleMutation();
  const [pendingRemoval, setPendingRemoval] = useState<Handle | null>(null);
  const [tweetsOf, setTweetsOf] = useState<string | null>(null);
  const [filterOf, setFilterOf] = useState<Handle | null>(null);
  const selected = selectedHandle?.toLowerCase() ?? null;
  const { showMessage } = form;
  // A refused switch is answered beside that switch, not at the top of the panel.
  const [refusals, setRefusals] = useState<ReadonlyMap<number, SwitchRefusal>>(new Map());
  const setRefusal = useCallback((id: number, refusal: SwitchRefusal | null) => {
    setRefusals((current) => {
      if (!refusal && !current.has(id)) return current;
      const next = new Map(current);
      if (refusal) next.set(id, refusal);
      else next.delete(id);
      return next;
    });
  }, []);
  const handleToggleOutcome = useCallback(
    (outcome: ToggleOutcome) => {
      if (outcome.handleId !== undefined && outcome.channel) {
        setRefusal(
          outcome.handleId,
          outcome.kind === 'error' ? { channel: outcome.channel, text: outcome.text } : null,
        );
        if (outcome.kind === 'error') return;
      }
      showMessage(outcome, outcome.kind === 'error' ? ERROR_MESSAGE_MS : SUCCESS_MESSAGE_MS);
    },
    [showMessage, setRefusal],
  );
  const toggles = useNotificationToggles(handleToggleOutcome);
  const notifications = { isBusy: toggles.isBusy, onToggle: toggles.toggle };

  const handleCompleted = (name: string) => {
    if (!announceSelectedCompletion && name.toLowerCase() === selected) return;
    form.showMessage({ kind: 'success', text: HANDLE_TEXTS.completed(name) }, COMPLETED_MESSAGE_MS);
  };

  const handleConfirmRemove = () => {
    const target = pendingRemoval;
    setPendingRemoval(null);
    if (!target) return;
    const remaining = list.filter((entry) => entry.id !== target.id);
    const wasSelected = selected === target.handle.toLowerCase();
    // Selection rule: the first remaining handle, or none.
    if (wasSelected) onSelect(remaining[0]?.handle ?? null);
    removeMutation.mutate(target, {
      onSuccess: () =>
        form.showMessage(
          { kind: 'success', text: HANDLE_TEXTS.removed(target.handle) },
          SUCCESS_MESSAGE_MS,
        ),
      onError: (removeError) => {
        if (wasSelected) onSelect(target.handle);
        form.showMessage({ kind: 'error', text: removeErrorText(removeError) }, ERROR_MESSAGE_MS);
      },
    });
  };

  return (
    <Card withBorder radius="lg" p="lg" data-testid="handle-panel">
      <Group justify="space-between" mb="md" wrap="nowrap">
        <Title order={3} size="h4">
          Monitored handles
        </Title>
        <HandleCountBadge count={list.length} />
      </Group>

      <form onSubmit={form.handleSubmit} aria-label="Add handle">
        <Stack gap="sm">
          <SimpleGrid type="container" cols={{ base: 1, '640px': 2 }} spacing="md">
            <TextInput
              label="Twitter handle"
              placeholder={HANDLE_TEXTS.inputPlaceholder}
              value={form.input}
              onChange={(event) => form.setInput(event.currentTarget.value)}
              error={form.hint ?? undefined}
              leftSection={<Text size="sm">@</Text>}
              autoComplete="off"
            />
            <Input.Wrapper label="Historical collection period" id="backfill-days-label">
              <SegmentedControl
                fullWidth
                aria-labelledby="backfill-days-label"
                data={DAY_OPTIONS}
                value={String(form.backfillDays)}
                onChange={(value) => form.setBackfillDays(Number(value))}
              />
            </Input.Wrapper>
          </SimpleGrid>
          <Group justify="space-between" gap="sm">
            {form.atLimit ? (
              <Text size="sm" c="orange">
                {HANDLE_TEXTS.limitReached}
              </Text>
            ) : (
              <span />
            )}
            <Button
              type="submit"
              leftSection={<IconPlus size={16} />}
              disabled={!form.canSubmit}
              loading={form.isAdding}
            >
              Add handle
            </Button>
          </Group>
          <HandleFormMessage message={form.message} onClose={form.clearMessage} />
        </Stack>
      </form>

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
                onRemove={setPendingRemoval}
                onCompleted={handleCompleted}
                notifications={notifications}
                onEditFilter={setFilterOf}
                forwarding={forwarding}
                refusal={refusals.get(handle.id) ?? null}
                onDismissRefusal={(id) => setRefusal(id, null)}
              />
            ))}
          </SimpleGrid>
        ) : null}
      </Stack>

      <RemoveHandleModal
        handle={pendingRemoval}
        explained
        onConfirm={handleConfirmRemove}
        onCancel={() => setPendingRemoval(null)}
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

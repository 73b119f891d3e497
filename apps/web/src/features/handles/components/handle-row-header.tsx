import { ActionIcon, Group, Text, Tooltip, UnstyledButton } from '@mantine/core';
import type { Handle } from '@perch/shared';
import { IconMessage2, IconTrash } from '@tabler/icons-react';
import { formatCount } from '@/lib/format';

export interface HandleRowHeaderProps {
  handle: Handle;
  /** The handle with its latest progress folded in: its count of tweets moves while collected. */
  live: Handle;
  selected: boolean;
  /** Still being added (no server id yet): nothing can be asked about it. */
  temporary: boolean;
  /** Another change to the list is running: Remove waits for it. */
  busy: boolean;
  onSelect: (handle: string) => void;
  onShowTweets: (handle: string) => void;
  onRemove: (handle: Handle) => void;
}

/** The top of a handle's row: its name and counts (a click selects it), Recent tweets, Remove. */
export function HandleRowHeader({
  handle,
  live,
  selected,
  temporary,
  busy,
  onSelect,
  onShowTweets,
  onRemove,
}: HandleRowHeaderProps) {
  const tweets = live.total_tweets_collected;
  return (
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
          {`${formatCount(tweets)} ${tweets === 1 ? 'tweet' : 'tweets'} · ${handle.backfill_days} ${handle.backfill_days === 1 ? 'day' : 'days'}`}
          {live.followers_count !== null ? ` · ${formatCount(live.followers_count)} followers` : ''}
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
  );
}

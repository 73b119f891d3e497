import {
  ActionIcon,
  Anchor,
  Badge,
  Box,
  Group,
  SegmentedControl,
  Skeleton,
  Stack,
  Text,
  ThemeIcon,
  Tooltip,
} from '@mantine/core';
import type { Delivery, DeliveryChannel, DeliveryStatus } from '@perch/shared';
import {
  IconBrandDiscord,
  IconBrandTelegram,
  IconExternalLink,
  IconHistory,
  IconInbox,
  IconRefresh,
  IconWebhook,
} from '@tabler/icons-react';
import { useState } from 'react';
import { SectionError } from '@/components/section-states';
import { formatDateTime } from '@/lib/format';
import { formatTime } from '@/lib/format';
import { useDeliveriesQuery } from '../api/get-deliveries';
import { SETTINGS_TEXTS } from '../utils/settings-messages';
import { formatWhen } from '../utils/format';
import { SettingsCard } from './settings-card';

const STATUS_LOOK: Record<DeliveryStatus, { label: string; color: string }> = {
  sent: { label: 'Sent', color: 'green' },
  pending: { label: 'Pending', color: 'yellow' },
  sending: { label: 'Sending', color: 'blue' },
  failed: { label: 'Failed', color: 'red' },
  cancelled: { label: 'Cancelled', color: 'gray' },
  expired: { label: 'Expired', color: 'orange' },
  filtered: { label: 'Filtered', color: 'grape' },
};

const CHANNEL_LOOK: Record<
  DeliveryChannel,
  { label: string; color: string; icon: typeof IconBrandTelegram }
> = {
  telegram: { label: 'Telegram', color: 'blue', icon: IconBrandTelegram },
  discord: { label: 'Discord', color: 'indigo', icon: IconBrandDiscord },
  webhook: { label: 'Webhook', color: 'teal', icon: IconWebhook },
};

type ChannelFilter = DeliveryChannel | 'all';

const FILTERS: { value: ChannelFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'telegram', label: 'Telegram' },
  { value: 'discord', label: 'Discord' },
  { value: 'webhook', label: 'Webhooks' },
];

function DeliveryRow({ delivery }: { delivery: Delivery }) {
  const channel = CHANNEL_LOOK[delivery.channel];
  const status = STATUS_LOOK[delivery.status];
  const at = delivery.sentAt ?? delivery.createdAt;
  return (
    <Box
      component="li"
      py="sm"
      style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}
      data-testid="delivery-row"
      aria-label={`${channel.label} message for @${delivery.handle}: ${status.label}`}
    >
      <Group wrap="nowrap" align="flex-start" gap="sm">
        <Tooltip label={channel.label}>
          <ThemeIcon variant="light" color={channel.color} size="md" radius="md">
            <channel.icon size={16} aria-label={channel.label} />
          </ThemeIcon>
        </Tooltip>
        <Stack gap={2} miw={0} style={{ flex: 1 }}>
          <Group gap="xs" justify="space-between" wrap="nowrap">
            <Text fw={600} size="sm" truncate="end">
              @{delivery.handle}
            </Text>
            <Badge
              color={status.color}
              variant="light"
              size="sm"
              radius="sm"
              tt="none"
              style={{ flexShrink: 0 }}
            >
              {status.label}
            </Badge>
          </Group>
          {delivery.channel === 'webhook' && delivery.webhookName ? (
            <Text size="xs" c="dimmed" truncate="end" data-testid="delivery-webhook">
              To {delivery.webhookName}
            </Text>
          ) : null}
          {delivery.alert ? (
            <Text size="xs" c="dimmed" data-testid="delivery-alert">
              Alert “{delivery.alert.ruleName}”: {delivery.alert.summary}
            </Text>
          ) : null}
          {delivery.excerpt ? (
            <Text size="sm" c="dimmed" lineClamp={2}>
              {delivery.excerpt}
            </Text>
          ) : null}
          <Group gap={6} wrap="wrap">
            <Text size="xs" c="dimmed" title={formatDateTime(at)}>
              <time dateTime={at}>{formatWhen(at)}</time>
            </Text>
            {delivery.attempts > 1 ? (
              <Text size="xs" c="dimmed">
                · {delivery.attempts} attempts
              </Text>
            ) : null}
            {delivery.status === 'pending' && delivery.nextAttemptAt ? (
              <Text size="xs" c="dimmed">
                · next try {formatTime(delivery.nextAttemptAt)}
              </Text>
            ) : null}
            {/* The dot wraps with the link, never left alone at the end of a line. */}
            <Group gap={6} wrap="nowrap">
              <Text size="xs" c="dimmed">
                ·
              </Text>
              <Anchor href={delivery.tweetUrl} target="_blank" rel="noopener noreferrer" size="xs">
                Open tweet
                <IconExternalLink size={11} style={{ marginLeft: 3, verticalAlign: -1 }} />
              </Anchor>
            </Group>
          </Group>
          {delivery.error ? (
            <Text size="xs" c={delivery.status === 'expired' ? 'orange.4' : 'red.4'}>
              {delivery.error}
            </Text>
          ) : null}
          {delivery.note ? (
            <Text size="xs" c="dimmed" data-testid="delivery-note">
              {delivery.note}
            </Text>
          ) : null}
        </Stack>
      </Group>
    </Box>
  );
}

/** The latest messages sent (or still waiting, or refused) on each channel. */
export function DeliveryLogCard() {
  const [filter, setFilter] = useState<ChannelFilter>('all');
  const query = useDeliveriesQuery({ channel: filter === 'all' ? undefined : filter });
  const deliveries = query.data ?? [];

  return (
    <SettingsCard
      title="Delivery log"
      icon={IconHistory}
      color="cyan"
      description="Latest messages to your channels"
      status={
        <Tooltip label="Refresh">
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label="Refresh the delivery log"
            loading={query.isFetching && !query.isPending}
            onClick={() => void query.refetch()}
          >
            <IconRefresh size={18} />
          </ActionIcon>
        </Tooltip>
      }
      testId="delivery-log"
    >
      <SegmentedControl
        size="xs"
        data={FILTERS}
        value={filter}
        onChange={(value) => setFilter(value as ChannelFilter)}
        aria-label="Channel"
        mb="sm"
      />
      {query.isPending ? (
        <Stack gap="xs" aria-busy="true" aria-label="Loading the delivery log">
          {Array.from({ length: 3 }, (_, index) => (
            <Skeleton key={index} h={48} radius="md" />
          ))}
        </Stack>
      ) : null}
      {query.isError && !query.data ? (
        <SectionError
          title={SETTINGS_TEXTS.deliveriesFailed}
          reason={query.error.message}
          retrying={query.isFetching}
          onRetry={() => void query.refetch()}
        />
      ) : null}
      {query.isSuccess && deliveries.length === 0 ? (
        <Stack align="center" gap={6} py="lg" data-testid="deliveries-empty">
          <ThemeIcon variant="light" color="gray" size="xl" radius="xl" aria-hidden>
            <IconInbox size={22} />
          </ThemeIcon>
          <Text size="sm" c="dimmed" ta="center" maw={420}>
            {SETTINGS_TEXTS.deliveriesEmpty}
          </Text>
        </Stack>
      ) : null}
      {deliveries.length > 0 ? (
        <Box component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Deliveries">
          {deliveries.map((delivery) => (
            <DeliveryRow key={delivery.id} delivery={delivery} />
          ))}
        </Box>
      ) : null}
    </SettingsCard>
  );
}

import { Anchor, Badge, Group, Paper, Text } from '@mantine/core';
import type { AlertFiring } from '@perch/shared';
import { IconBellRinging, IconExternalLink } from '@tabler/icons-react';
import { formatDateTime, formatRelative } from '@/lib/format';
import { ALERT_TEXTS } from '../utils/alert-texts';
import { firingNumbers } from '../utils/describe-rule';

export interface FiringItemProps {
  firing: AlertFiring;
  /** The clock relative times are read against. */
  now: number;
}

/**
 * One fired alert: which rule for which handle, when (relative, the exact time on hover), the
 * server's summary line, the numbers it fired with, and the post that fired it when there is one.
 */
export function FiringItem({ firing, now }: FiringItemProps) {
  const numbers = firingNumbers(firing.kind, firing.numbers);
  return (
    <Paper component="li" withBorder radius="md" p="sm" data-testid="alert-firing">
      <Group justify="space-between" align="flex-start" gap="xs" wrap="nowrap">
        <Group gap="xs" miw={0} wrap="wrap">
          <IconBellRinging
            size={16}
            aria-hidden
            style={{ color: 'var(--mantine-color-yellow-filled)', flexShrink: 0 }}
          />
          <Text fw={600} size="sm" style={{ overflowWrap: 'anywhere' }}>
            {firing.rule_name}
          </Text>
          <Badge size="sm" variant="light" color="gray" tt="none">
            @{firing.handle}
          </Badge>
        </Group>
        <Text
          size="xs"
          c="dimmed"
          component="time"
          dateTime={firing.fired_at}
          title={formatDateTime(firing.fired_at)}
          style={{ whiteSpace: 'nowrap' }}
        >
          {formatRelative(firing.fired_at, now)}
        </Text>
      </Group>
      <Text size="sm" mt={6} style={{ overflowWrap: 'anywhere' }}>
        {firing.summary}
      </Text>
      {numbers.length > 0 || firing.tweet_url ? (
        <Group justify="space-between" align="flex-end" gap="xs" mt="xs">
          <Group
            component="dl"
            gap="md"
            m={0}
            style={{ rowGap: 2 }}
            aria-label="Numbers"
            data-testid="alert-firing-numbers"
          >
            {numbers.map((number) => (
              <Group key={number.name} gap={4} wrap="nowrap">
                <Text component="dt" size="xs" c="dimmed">
                  {number.label}
                </Text>
                <Text component="dd" size="xs" fw={500} m={0}>
                  {number.value}
                </Text>
              </Group>
            ))}
          </Group>
          {firing.tweet_url ? (
            <Anchor
              href={firing.tweet_url}
              target="_blank"
              rel="noopener noreferrer"
              size="xs"
              aria-label={ALERT_TEXTS.viewPostLabel(firing.rule_name)}
            >
              <Group gap={2} wrap="nowrap">
                {ALERT_TEXTS.viewPost}
                <IconExternalLink size={12} aria-hidden />
              </Group>
            </Anchor>
          ) : null}
        </Group>
      ) : null}
    </Paper>
  );
}

import { Alert, Text } from '@mantine/core';
import { X_WEB_MESSAGES, type XWebPoolState } from '@perch/shared';
import { IconCloudOff } from '@tabler/icons-react';
import { formatDateTime, formatRelative, formatTime } from '@/lib/format';
import { useNow } from '@/lib/use-now';
import { X_WEB_TEXTS } from '../utils/x-web-texts';

/** The countdown to the next try moves every second: the pause may be as short as a minute. */
const COUNTDOWN_TICK_MS = 1_000;

/** True while the pool waits: `paused_until` lies ahead of `now`. */
export function isPoolPaused(pool: XWebPoolState, now: number): boolean {
  if (!pool.paused_until) return false;
  const until = Date.parse(pool.paused_until);
  return !Number.isNaN(until) && until > now;
}

/**
 * The whole pool waits because X answers web requests with HTML (Cloudflare) pages: what X
 * answered, since when, and when Perch tries again, counting down. In yellow, since nothing is
 * wrong with the accounts themselves; gone once the instant has passed (the next poll tells
 * whether X let the request through).
 */
export function XWebPoolBanner({ pool }: { pool: XWebPoolState }) {
  const now = useNow(COUNTDOWN_TICK_MS, pool.paused_until !== null);
  if (!isPoolPaused(pool, now) || !pool.paused_until) return null;
  const until = pool.paused_until;
  const since = pool.paused_since;
  return (
    <Alert
      color="yellow"
      variant="light"
      icon={<IconCloudOff size={18} />}
      title={X_WEB_MESSAGES.poolPaused}
      mb="md"
      // A warning, read politely; the countdown below is not re-read at each tick.
      role="status"
      data-testid="x-web-pool-paused"
    >
      {pool.pause_reason ? (
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {X_WEB_TEXTS.poolAnswer}: {pool.pause_reason}
        </Text>
      ) : null}
      <Text size="sm" mt={4}>
        {X_WEB_TEXTS.poolRetryAt(formatTime(until))} (
        <time dateTime={until} title={formatDateTime(until)} aria-live="off">
          {formatRelative(until, now)}
        </time>
        )
      </Text>
      {since ? (
        <Text size="xs" c="dimmed" mt={4}>
          {X_WEB_TEXTS.poolSince} <time dateTime={since}>{formatDateTime(since)}</time>{' '}
          <span aria-live="off">({formatRelative(since, now)})</span>
        </Text>
      ) : null}
      <Text size="xs" c="dimmed" mt={4}>
        {X_WEB_TEXTS.poolPausedDetail}
      </Text>
    </Alert>
  );
}

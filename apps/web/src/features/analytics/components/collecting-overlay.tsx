import { Box, Overlay, Paper, RingProgress, Stack, Text, Title } from '@mantine/core';
import { STARTING_STATUSES } from '@perch/shared';
import { useNow } from '@/lib/use-now';
import { progressPercent, type ProgressReading } from '../utils/collecting-overlay';
import { formatTimeLeft, plural } from '../utils/format';

export interface CollectingOverlayProps {
  handle: string;
  progress: ProgressReading | undefined;
}

/** How often the time left is worked out again between two readings. */
const CLOCK_TICK_MS = 1_000;

const STARTING: ReadonlySet<string> = new Set<string>([...STARTING_STATUSES, 'idle']);

/**
 * The status line under the count, only while the collection has not really begun (no
 * progress yet, and a pending or starting status): 'Starting collection...'. Once it runs, the
 * percentage, the tweets found and the time left say it all (the server's message would only
 * repeat them, with its own rounding).
 */
export function collectingStatusText(progress: ProgressReading | undefined): string | null {
  if (progressPercent(progress) > 0) return null;
  if (!progress || STARTING.has(progress.status)) return 'Starting collection...';
  return null;
}

/** 'N tweets found', or 'Scanning...' before the first one. */
export function tweetsFoundText(progress: ProgressReading | undefined): string {
  const tweets = progress?.totalTweets ?? 0;
  return tweets > 0 ? `${plural(tweets, 'tweet')} found` : 'Scanning...';
}

/**
 * The blurred cover over the analytics while a handle is being collected: the
 * progress in percent, the tweets found so far and, when the server estimates it, the time left.
 */
export function CollectingOverlay({ handle, progress }: CollectingOverlayProps) {
  const percent = progressPercent(progress);
  const estimate = progress?.estimatedCompletion ?? null;
  const now = useNow(CLOCK_TICK_MS, estimate !== null);
  const timeLeft = formatTimeLeft(estimate, now);
  const status = collectingStatusText(progress);
  return (
    <Overlay
      blur={6}
      backgroundOpacity={0.35}
      color="var(--mantine-color-body)"
      radius="lg"
      zIndex={5}
      data-testid="collecting-overlay"
    >
      <Box pos="sticky" top={100} pt={{ base: 40, sm: 72 }} px="md">
        <Paper
          withBorder
          shadow="xl"
          radius="lg"
          p="xl"
          maw={360}
          mx="auto"
          role="status"
          aria-live="polite"
        >
          <Stack align="center" gap="xs">
            <RingProgress
              size={128}
              thickness={10}
              roundCaps
              sections={[{ value: percent, color: 'cyan' }]}
              label={
                <Text ta="center" fw={700} fz={24} data-testid="collecting-percent">
                  {percent}%
                </Text>
              }
              aria-label={`Collection progress for @${handle}`}
            />
            <Title order={3} fz="md" ta="center">
              Collecting @{handle}
            </Title>
            <Stack gap={2} align="center">
              <Text size="sm" c="dimmed" ta="center" data-testid="collecting-tweets">
                {tweetsFoundText(progress)}
              </Text>
              {timeLeft ? (
                <Text size="xs" c="dimmed" ta="center" data-testid="collecting-time-left">
                  {timeLeft}
                </Text>
              ) : null}
            </Stack>
            {status ? (
              <Text size="sm" ta="center" data-testid="collecting-status">
                {status}
              </Text>
            ) : null}
          </Stack>
        </Paper>
      </Box>
    </Overlay>
  );
}

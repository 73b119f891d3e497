import { Box, Overlay, Paper, RingProgress, Stack, Text, Title } from '@mantine/core';
import { clampProgress } from '@perch/shared';
import type { ProgressReading } from '../utils/collecting-overlay';
import { plural } from '../utils/format';

export interface CollectingOverlayProps {
  handle: string;
  progress: ProgressReading | undefined;
}

/** The status line under the ring: the server's message, else what the progress says. */
export function collectingStatusText(progress: ProgressReading | undefined): string {
  const message = progress?.message?.trim();
  if (message) return message;
  return (progress?.progress ?? 0) > 0 ? 'Collecting data...' : 'Starting collection...';
}

/**
 * The blurred cover over the analytics while a handle is being collected (doc 1 §4): the
 * progress in percent, the tweets found so far and the status.
 */
export function CollectingOverlay({ handle, progress }: CollectingOverlayProps) {
  const percent = Math.round(clampProgress(progress?.progress ?? 0));
  const tweets = progress?.totalTweets ?? 0;
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
            <Text size="sm" c="dimmed" ta="center">
              {tweets > 0 ? `${plural(tweets, 'tweet')} found` : 'Scanning...'}
            </Text>
            <Text size="sm" ta="center">
              {collectingStatusText(progress)}
            </Text>
          </Stack>
        </Paper>
      </Box>
    </Overlay>
  );
}

import { Alert, Text } from '@mantine/core';
import { IconPlugConnectedX } from '@tabler/icons-react';
import { SETTINGS_TEXTS } from '../utils/settings-messages';

/**
 * Why delivery to a channel stopped for good, and how to get it going again (`help`: a channel's
 * own way; the Telegram and Discord one by default).
 */
export function StoppedAlert({
  reason,
  help = SETTINGS_TEXTS.stoppedHelp,
}: {
  reason: string;
  help?: string;
}) {
  return (
    <Alert
      color="red"
      variant="light"
      title={SETTINGS_TEXTS.stoppedTitle}
      icon={<IconPlugConnectedX size={18} />}
      data-testid="stopped-reason"
    >
      <Text size="sm">{reason}</Text>
      <Text size="xs" c="dimmed" mt={4}>
        {help}
      </Text>
    </Alert>
  );
}

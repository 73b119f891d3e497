import { Alert, Button, Group, Text } from '@mantine/core';
import { IconPlugConnectedX } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { checkHealth } from '@/features/settings/api/get-health';
import { useConnectionState } from '@/features/settings/hooks/use-connection-state';

/** Texts of the connection banner. */
export const CONNECTION_TEXTS = {
  offlineTitle: 'You are offline',
  offlineBody: 'Perch refreshes as soon as this device is back online.',
  downTitle: 'Perch is not answering',
  downBody:
    'Updates are paused so the server is not flooded with retries. Everything catches up by itself when it answers again.',
  retry: 'Check now',
} as const;

/**
 * The app-wide connection state above every page: offline, or the server not answering (its
 * health check failed or the retry circuit opened). Gone by itself once the server answers.
 */
export function ConnectionBanner() {
  const queryClient = useQueryClient();
  const connection = useConnectionState();
  const [checking, setChecking] = useState(false);

  if (connection === 'ok') return null;
  const offline = connection === 'offline';
  const retry = () => {
    setChecking(true);
    void checkHealth(queryClient, { force: true }).finally(() => setChecking(false));
  };
  return (
    <Alert
      data-testid="connection-banner"
      role="status"
      color={offline ? 'gray' : 'orange'}
      variant="light"
      icon={<IconPlugConnectedX size={20} stroke={1.6} />}
      title={offline ? CONNECTION_TEXTS.offlineTitle : CONNECTION_TEXTS.downTitle}
      mb="md"
    >
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm" style={{ flex: '1 1 240px' }}>
          {offline ? CONNECTION_TEXTS.offlineBody : CONNECTION_TEXTS.downBody}
        </Text>
        {offline ? null : (
          <Button size="xs" variant="default" onClick={retry} loading={checking}>
            {CONNECTION_TEXTS.retry}
          </Button>
        )}
      </Group>
    </Alert>
  );
}

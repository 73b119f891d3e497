import { Alert, Box, Text } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';
import { useAdminBanner } from '../hooks/use-admin-banner';

/**
 * The success or error banner at the top of the admin page. It sticks under the header (on an
 * opaque backing), so the outcome of an action far down the page is seen without scrolling up.
 */
export function AdminBanner() {
  const { message, dismiss } = useAdminBanner();
  if (!message) return null;
  const isError = message.kind === 'error';
  return (
    <Box
      pos="sticky"
      top="calc(var(--app-shell-header-offset, 0rem) + var(--mantine-spacing-xs))"
      bg="var(--mantine-color-body)"
      style={{ zIndex: 3, borderRadius: 'var(--mantine-radius-md)' }}
    >
      <Alert
        color={isError ? 'red' : 'green'}
        variant="light"
        icon={isError ? <IconAlertCircle size={18} /> : <IconCircleCheck size={18} />}
        role={isError ? 'alert' : 'status'}
        withCloseButton
        closeButtonLabel="Dismiss"
        onClose={dismiss}
        data-testid={isError ? 'admin-error' : 'admin-success'}
      >
        <Text size="sm" fw={500}>
          {message.text}
        </Text>
        {message.details ? (
          <Text size="xs" c="dimmed" mt={2}>
            {message.details}
          </Text>
        ) : null}
      </Alert>
    </Box>
  );
}

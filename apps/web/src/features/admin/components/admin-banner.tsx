import { Box } from '@mantine/core';
import { MessageAlert } from '@/components/message-alert';
import { useAdminBanner } from '../hooks/use-admin-banner';

/**
 * The success or error banner at the top of the admin page. It sticks under the header (on an
 * opaque backing), so the outcome of an action far down the page is seen without scrolling up.
 */
export function AdminBanner() {
  const { message, dismiss } = useAdminBanner();
  if (!message) return null;
  return (
    <Box
      pos="sticky"
      top="calc(var(--app-shell-header-offset, 0rem) + var(--mantine-spacing-xs))"
      bg="var(--mantine-color-body)"
      style={{ zIndex: 3, borderRadius: 'var(--mantine-radius-md)' }}
    >
      <MessageAlert message={message} onDismiss={dismiss} testId={(kind) => `admin-${kind}`} />
    </Box>
  );
}

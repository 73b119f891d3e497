import { Button, Center, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconPlugConnectedX, IconRefresh } from '@tabler/icons-react';
import { Navigate, Outlet } from 'react-router';
import { FullPageLoader } from '@/components/full-page-loader';
import { useAuthCheckQuery } from '@/features/auth/api/get-auth-check';
import { useAuth } from '@/features/auth/hooks/use-auth';

/**
 * The session check got no answer and none is known: the server is unreachable, which says
 * nothing about the session, so this is not the sign-in page. Retry asks again.
 */
function SessionUnreachable() {
  const check = useAuthCheckQuery();
  return (
    <Center mih="100dvh" p="md" data-testid="session-unreachable">
      <Stack align="center" gap="sm" maw={420} ta="center">
        <ThemeIcon size={48} radius="xl" variant="light" color="yellow" aria-hidden>
          <IconPlugConnectedX size={26} />
        </ThemeIcon>
        <Title order={2} size="h3">
          Perch is not answering
        </Title>
        <Text c="dimmed" size="sm">
          Your session could not be checked because the server did not answer. You are still signed
          in if you were; try again in a moment.
        </Text>
        <Button
          leftSection={<IconRefresh size={16} />}
          loading={check.isFetching}
          onClick={() => void check.refetch()}
        >
          Try again
        </Button>
      </Stack>
    </Center>
  );
}

/**
 * Signed-in pages: 'Loading...' while auth loads, then the sign-in page when nobody is (the
 * server said so), or a retry screen when the server could not be asked.
 */
export function ProtectedRoute() {
  const { currentUser, loading, authInitialized, unreachable } = useAuth();
  if (loading || !authInitialized) return <FullPageLoader label="Loading..." />;
  if (unreachable) return <SessionUnreachable />;
  if (!currentUser) return <Navigate to="/login" replace />;
  return <Outlet />;
}

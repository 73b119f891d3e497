import { Alert, Card, SimpleGrid, Text, ThemeIcon } from '@mantine/core';
import { IconDatabaseCog, IconLock, IconUsers, IconWorld } from '@tabler/icons-react';
import { PageHeader } from '@/components/page-header';
import { useAuth } from '@/features/auth/hooks/use-auth';

export const ADMIN_ACCESS_DENIED = 'Access Denied. Admin privileges required.';

const SECTIONS = [
  {
    icon: IconUsers,
    title: 'Registered Users',
    text: 'Every account with its ID and join date; select one to see and remove its handles.',
  },
  {
    icon: IconWorld,
    title: 'Global Handle Management',
    text: 'All handles in the system, with a global delete that stops collection for everyone.',
  },
  {
    icon: IconDatabaseCog,
    title: 'Data Cleanup per Handle',
    text: 'Super admins can clear the collected data of a handle and let it start over.',
  },
];

/** /admin: admin tools, filled by the admin work; the server enforces the roles too. */
export function AdminRoute() {
  const { currentUser } = useAuth();
  if (!currentUser?.isAdmin && !currentUser?.isSuperAdmin) {
    return (
      <Alert color="red" variant="light" icon={<IconLock size={18} />}>
        {ADMIN_ACCESS_DENIED}
      </Alert>
    );
  }
  return (
    <>
      <PageHeader
        title="Admin Dashboard"
        description="Users, handles and collectors will be managed here."
      />
      <SimpleGrid cols={{ base: 1, md: 3 }} spacing="md">
        {SECTIONS.map((section) => (
          <Card key={section.title} withBorder radius="lg" p="lg">
            <ThemeIcon variant="light" size="lg" mb="sm" aria-hidden>
              <section.icon size={20} />
            </ThemeIcon>
            <Text fw={600} mb={4}>
              {section.title}
            </Text>
            <Text size="sm" c="dimmed">
              {section.text}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
    </>
  );
}

export { AdminRoute as Component };

import { Alert, Stack } from '@mantine/core';
import { ADMIN_MESSAGES } from '@perch/shared';
import { IconLock } from '@tabler/icons-react';
import { PageHeader } from '@/components/page-header';
import { AdminBanner } from '@/features/admin/components/admin-banner';
import { AdminBannerProvider } from '@/features/admin/components/admin-banner-provider';
import { CollectorsSection } from '@/features/admin/components/collectors-section';
import { DataCleanupSection } from '@/features/admin/components/data-cleanup-section';
import { GlobalHandlesSection } from '@/features/admin/components/global-handles-section';
import { InvitationsSection } from '@/features/admin/components/invitations-section';
import { UsersSection } from '@/features/admin/components/users-section';
import { XApiStatusBanner } from '@/features/admin/components/x-api-status-banner';
import { XUsageSection } from '@/features/admin/components/x-usage-section';
import { XWebAccountsSection } from '@/features/admin/components/x-web-accounts-section';
import { XWebOperationsSection } from '@/features/admin/components/x-web-operations-section';
import { ADMIN_TEXTS } from '@/features/admin/utils/admin-texts';
import { useAuth } from '@/features/auth/hooks/use-auth';
import { HandlesDemoSection } from '@/features/handles/components/demo-panel/handles-demo-section';

/**
 * /admin: the Admin Dashboard, a list of sections under one banner. Admins see it;
 * super-admin actions are hidden from plain admins, and the server enforces the roles too.
 */
export function AdminRoute() {
  const { currentUser } = useAuth();
  if (!currentUser || !(currentUser.isAdmin || currentUser.isSuperAdmin)) {
    return (
      <Alert color="red" variant="light" icon={<IconLock size={18} />}>
        {ADMIN_MESSAGES.adminRequired}
      </Alert>
    );
  }
  const { isSuperAdmin } = currentUser;
  return (
    <AdminBannerProvider>
      <PageHeader title={ADMIN_TEXTS.pageTitle} description={ADMIN_TEXTS.pageDescription} />
      <Stack gap="lg">
        <AdminBanner />
        <XApiStatusBanner />
        <UsersSection currentUserId={currentUser.id} isSuperAdmin={isSuperAdmin} />
        <GlobalHandlesSection />
        <CollectorsSection isSuperAdmin={isSuperAdmin} />
        <XUsageSection />
        <XWebAccountsSection isSuperAdmin={isSuperAdmin} />
        <XWebOperationsSection isSuperAdmin={isSuperAdmin} />
        <InvitationsSection isSuperAdmin={isSuperAdmin} />
        <DataCleanupSection isSuperAdmin={isSuperAdmin} />
        <HandlesDemoSection />
      </Stack>
    </AdminBannerProvider>
  );
}

export { AdminRoute as Component };

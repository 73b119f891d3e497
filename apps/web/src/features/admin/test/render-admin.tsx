import { Stack } from '@mantine/core';
import { screen } from '@testing-library/react';
import type { ReactElement } from 'react';
import { renderRoute } from '@/test/render';
import { AdminBanner } from '../components/admin-banner';
import { AdminBannerProvider } from '../components/admin-banner-provider';
import { CollectorsSection } from '../components/collectors-section';
import { DataCleanupSection } from '../components/data-cleanup-section';
import { GlobalHandlesSection } from '../components/global-handles-section';
import { InvitationsSection } from '../components/invitations-section';
import { UsersSection } from '../components/users-section';

export interface RenderAdminOptions {
  isSuperAdmin?: boolean;
  currentUserId?: number;
}

/** Renders the admin page's sections at /admin as the route composes them. */
export function renderAdmin({ isSuperAdmin = false, currentUserId = 2 }: RenderAdminOptions = {}) {
  return renderRoute(
    '/admin',
    <AdminBannerProvider>
      <Stack gap="lg">
        <AdminBanner />
        <UsersSection currentUserId={currentUserId} isSuperAdmin={isSuperAdmin} />
        <GlobalHandlesSection />
        <CollectorsSection isSuperAdmin={isSuperAdmin} />
        <InvitationsSection isSuperAdmin={isSuperAdmin} />
        <DataCleanupSection isSuperAdmin={isSuperAdmin} />
      </Stack>
    </AdminBannerProvider>,
    { routes: [{ path: '/settings', element: <p>Settings page</p> }] },
  );
}

/** Renders one admin section at /admin under the page's banner, as the route places it. */
export function renderAdminSection(sectionElement: ReactElement) {
  return renderRoute(
    '/admin',
    <AdminBannerProvider>
      <Stack>
        <AdminBanner />
        {sectionElement}
      </Stack>
    </AdminBannerProvider>,
  );
}

/** One section of the page, by its title. */
export function section(name: string | RegExp): HTMLElement {
  return screen.getByRole('region', { name });
}

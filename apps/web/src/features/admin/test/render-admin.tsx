import { Stack } from '@mantine/core';
import { screen } from '@testing-library/react';
import { expect } from 'vitest';
import type { ReactElement } from 'react';
import { stubFetch, type StubHandler } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { AdminBanner } from '../components/admin-banner';
import { AdminBannerProvider } from '../components/admin-banner-provider';
import { CollectorsSection } from '../components/collectors-section';
import { DataCleanupSection } from '../components/data-cleanup-section';
import { GlobalHandlesSection } from '../components/global-handles-section';
import { InvitationsSection } from '../components/invitations-section';
import { UsersSection } from '../components/users-section';
import { sampleAdminServer } from './admin-fixtures';

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

export interface RenderSampleAdminOptions extends RenderAdminOptions {
  /** Routes answered otherwise than by the sample server, by 'METHOD /path'. */
  answers?: Record<string, StubHandler>;
}

/** Serves the sample admin data (with `answers` in place of its own) and renders the page. */
export function renderSampleAdmin({ answers = {}, ...options }: RenderSampleAdminOptions = {}) {
  const fetchMock = stubFetch({ ...sampleAdminServer().handlers, ...answers });
  return { fetchMock, ...renderAdmin(options) };
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

/** Waits for the page's error banner and checks it says what failed and why. */
export async function expectAdminError(what: string, why: string): Promise<HTMLElement> {
  const banner = await screen.findByTestId('admin-error');
  expect(banner).toHaveTextContent(what);
  expect(banner).toHaveTextContent(why);
  return banner;
}

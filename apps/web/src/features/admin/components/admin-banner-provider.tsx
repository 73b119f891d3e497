import type { ReactNode } from 'react';
import { AdminBannerContext, useAdminBannerState } from '../hooks/use-admin-banner';

/** Holds the admin page's banner, which every section below reports to. */
export function AdminBannerProvider({ children }: { children: ReactNode }) {
  const state = useAdminBannerState();
  return <AdminBannerContext value={state}>{children}</AdminBannerContext>;
}

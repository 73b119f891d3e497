import { Outlet, ScrollRestoration, useLocation } from 'react-router';
import { FullPageLoader } from '@/components/full-page-loader';
import { useAuth } from '@/features/auth/hooks/use-auth';

/** Pages that render at once, without waiting for the first session check. */
const UNGATED_PATHS = new Set(['/login', '/register']);

/**
 * Root of the route tree: runs the session check once at start and shows 'Initializing...'
 * until it has answered, except on the sign-in and registration pages.
 */
export function AuthGate() {
  const { pathname } = useLocation();
  const { authInitialized } = useAuth();
  const normalized = pathname.replace(/\/+$/, '') || '/';
  if (!authInitialized && !UNGATED_PATHS.has(normalized)) {
    return <FullPageLoader label="Initializing..." />;
  }
  return (
    <>
      {/* A new page starts at its top (e.g. home after a long registration form). */}
      <ScrollRestoration />
      <Outlet />
    </>
  );
}

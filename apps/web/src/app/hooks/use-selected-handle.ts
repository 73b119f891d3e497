import type { Handle } from '@perch/shared';
import { useCallback } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { useHandlesQuery } from '@/features/handles/api/get-handles';

/** The search parameter that names the dashboard's handle: `/?handle=nasa`. */
export const HANDLE_PARAM = 'handle';

function isDashboardPath(pathname: string): boolean {
  return pathname === '/' || pathname === '/dashboard' || pathname === '/dashboard/';
}

/**
 * The handle the dashboard shows: the one named in the URL when it is monitored, else the first
 * handle, else none. After a removal this gives the first remaining handle.
 */
export function resolveSelectedHandle(
  requested: string | null,
  handles: readonly Handle[] | undefined,
): string | null {
  if (!handles || handles.length === 0) return null;
  const wanted = requested?.toLowerCase();
  const match = wanted ? handles.find((entry) => entry.handle.toLowerCase() === wanted) : undefined;
  return (match ?? handles[0])?.handle ?? null;
}

/**
 * The selected handle, kept in the URL so that it survives reloads and can be linked; selecting
 * from another page opens the dashboard.
 */
export function useSelectedHandle() {
  const [searchParams] = useSearchParams();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const { data: handles } = useHandlesQuery();
  const onDashboard = isDashboardPath(pathname);
  const requested = searchParams.get(HANDLE_PARAM);
  const selectedHandle = onDashboard ? resolveSelectedHandle(requested, handles) : null;

  const selectHandle = useCallback(
    (handle: string | null) => {
      const search = handle ? `?${new URLSearchParams({ [HANDLE_PARAM]: handle }).toString()}` : '';
      void navigate(
        { pathname: onDashboard ? pathname : '/', search },
        { replace: onDashboard && handle === null },
      );
    },
    [navigate, onDashboard, pathname],
  );

  return { selectedHandle, selectHandle };
}

import { Navigate, Outlet } from 'react-router';
import { FullPageLoader } from '@/components/full-page-loader';
import { useAuth } from '@/features/auth/hooks/use-auth';

/** Signed-in pages: 'Loading...' while auth loads, then the sign-in page when nobody is. */
export function ProtectedRoute() {
  const { currentUser, loading, authInitialized } = useAuth();
  if (loading || !authInitialized) return <FullPageLoader label="Loading..." />;
  if (!currentUser) return <Navigate to="/login" replace />;
  return <Outlet />;
}

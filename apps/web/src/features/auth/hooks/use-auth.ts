import type { AuthCheckResponse } from '@perch/shared';
import { useAuthCheckQuery } from '../api/get-auth-check';

/** The signed-in person as the app uses it (doc 1 §3, Current user). */
export interface CurrentUser {
  id: number;
  username: string;
  email: string;
  isAdmin: boolean;
  isSuperAdmin: boolean;
  profile: Record<string, unknown> | null;
}

/** Auth state of doc 1 §3: currentUser, isAuthenticated, loading, authInitialized, error. */
export interface AuthState {
  currentUser: CurrentUser | null;
  isAuthenticated: boolean;
  /** The first session check is running. */
  loading: boolean;
  /** The first session check has finished, with or without a user. */
  authInitialized: boolean;
  error: string | null;
}

/** The current user of a session check result; the username defaults to Unknown. */
export function toCurrentUser(check: AuthCheckResponse | undefined): CurrentUser | null {
  if (!check?.authenticated || check.userId === undefined) return null;
  return {
    id: check.userId,
    username: check.username ?? 'Unknown',
    email: check.email ?? '',
    isAdmin: check.isAdmin ?? false,
    isSuperAdmin: check.isSuperAdmin ?? false,
    profile: check.profile ?? null,
  };
}

/**
 * Who is signed in, from the session check. A failed check counts as signed out (doc 1 §4):
 * the server is the only judge of a session.
 */
export function useAuth(): AuthState {
  const query = useAuthCheckQuery();
  const currentUser = query.isError ? null : toCurrentUser(query.data);
  return {
    currentUser,
    isAuthenticated: currentUser !== null,
    loading: query.isLoading,
    authInitialized: !query.isPending,
    error: query.error?.message ?? null,
  };
}

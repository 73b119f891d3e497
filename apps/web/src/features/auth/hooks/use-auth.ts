import type { AuthCheckResponse } from '@perch/shared';
import { useAuthCheckQuery } from '../api/get-auth-check';
import { isUnjudgedCheckFailure } from '../api/session-scope';

/** The signed-in person as the app uses it. */
export interface CurrentUser {
  id: number;
  username: string;
  email: string;
  isAdmin: boolean;
  isSuperAdmin: boolean;
  profile: Record<string, unknown> | null;
}

/** Auth state: currentUser, isAuthenticated, loading, authInitialized, error. */
export interface AuthState {
  currentUser: CurrentUser | null;
  isAuthenticated: boolean;
  /** The first session check is running. */
  loading: boolean;
  /** The first session check has finished, with or without a user. */
  authInitialized: boolean;
  error: string | null;
  /**
   * The session check got no verdict (no answer, the retry circuit open, a server error) and no
   * earlier one is known: who is signed in cannot be told yet.
   */
  unreachable: boolean;
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
 * Who is signed in, from the session check. A check the server refused counts as signed out
 * signed out: the server is the only judge of a session. A check that got no verdict (a network
 * blip, the retry circuit open, a 5xx) signs nobody out: the last answer stands, and without one
 * the app says it cannot reach the server rather than showing the sign-in page.
 */
export function useAuth(): AuthState {
  const query = useAuthCheckQuery();
  const unjudged = query.isError && isUnjudgedCheckFailure(query.error);
  const currentUser = query.isError && !unjudged ? null : toCurrentUser(query.data);
  return {
    currentUser,
    isAuthenticated: currentUser !== null,
    loading: query.isLoading,
    authInitialized: !query.isPending,
    error: query.error?.message ?? null,
    unreachable: unjudged && query.data === undefined,
  };
}

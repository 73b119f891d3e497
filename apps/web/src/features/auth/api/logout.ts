import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { authCheckQueryKey, signedOutCheck } from './get-auth-check';
import { SESSION_MUTATION_SCOPE } from './session-scope';

export interface LogoutInput {
  userId: number | null;
}

/** POST /auth/logout: closes the session and clears the cookie. */
export async function logout({ userId }: LogoutInput): Promise<void> {
  await apiClient.post('/auth/logout', { user_id: userId ?? undefined, action: 'manual_logout' });
}

/**
 * Signs out. The local state is cleared whatever the server answers: a person who pressed
 * Logout must not stay signed in on screen because the network failed. The caller ends the
 * session in every tab first (`useEndSession`), before `mutate` re-renders the signed-in pages.
 */
export function useLogoutMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    scope: SESSION_MUTATION_SCOPE,
    mutationFn: logout,
    onSettled: () => {
      queryClient.removeQueries({
        predicate: (query) => query.queryKey[0] !== authCheckQueryKey[0],
      });
      queryClient.setQueryData(authCheckQueryKey, (previous) =>
        signedOutCheck(previous?.csrfToken),
      );
    },
  });
}

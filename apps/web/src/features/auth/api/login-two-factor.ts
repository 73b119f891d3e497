import { loginResponseSchema, type LoginResponse } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { rememberSignedIn } from './login';
import { SESSION_MUTATION_SCOPE } from './session-scope';

/** POST /auth/login/2fa: finishes a sign-in with an authenticator or recovery code. */
export function loginTwoFactor(code: string): Promise<LoginResponse> {
  return apiClient.post('/auth/login/2fa', { code: code.trim() }, loginResponseSchema);
}

/** The second sign-in step; success makes the returned user the current user. */
export function useLoginTwoFactorMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    scope: SESSION_MUTATION_SCOPE,
    mutationFn: loginTwoFactor,
    onSuccess: (answer) => rememberSignedIn(queryClient, answer),
  });
}

import { registerResponseSchema, type RegisterRequest, type RegisterResponse } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { authCheckQueryKey, signedInCheck } from './get-auth-check';
import { SESSION_MUTATION_SCOPE } from './session-scope';

export interface RegisterInput {
  username: string;
  email: string;
  password: string;
  invitationCode: string;
}

/**
 * POST /auth/register: creates the account and signs it in. The password is repeated as
 * confirmPassword and the terms are accepted, as the spec's client does.
 */
export function registerAccount(input: RegisterInput): Promise<RegisterResponse> {
  const body: RegisterRequest = {
    username: input.username.trim(),
    email: input.email.trim(),
    password: input.password,
    confirmPassword: input.password,
    invitationCode: input.invitationCode.trim(),
    acceptTerms: true,
    acceptPrivacy: true,
  };
  return apiClient.post('/auth/register', body, registerResponseSchema);
}

/** Registers and makes the new user the current user. */
export function useRegisterMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    scope: SESSION_MUTATION_SCOPE,
    mutationFn: registerAccount,
    onSuccess: (data) => {
      queryClient.setQueryData(authCheckQueryKey, signedInCheck(data.user, data.csrfToken));
    },
  });
}

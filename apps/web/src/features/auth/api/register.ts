import { registerResponseSchema, type RegisterRequest, type RegisterResponse } from '@perch/shared';
import { apiClient } from '@/lib/api-client';
import { rememberSignedIn } from './login';
import { useSessionOpening } from './session-scope';

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
  return useSessionOpening(registerAccount, rememberSignedIn);
}

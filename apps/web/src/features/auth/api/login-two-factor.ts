import { loginResponseSchema, type LoginResponse } from '@perch/shared';
import { apiClient } from '@/lib/api-client';
import { rememberSignedIn } from './login';
import { useSessionOpening } from './session-scope';

/** POST /auth/login/2fa: finishes a sign-in with an authenticator or recovery code. */
export function loginTwoFactor(code: string): Promise<LoginResponse> {
  return apiClient.post('/auth/login/2fa', { code: code.trim() }, loginResponseSchema);
}

/** The second sign-in step; success makes the returned user the current user. */
export function useLoginTwoFactorMutation() {
  return useSessionOpening(loginTwoFactor, rememberSignedIn);
}

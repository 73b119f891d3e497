import {
  DEVICE_INFO_MAX_LENGTH,
  requiresTwoFactor,
  type LoginRequest,
  type LoginResponse,
  type LoginResult,
} from '@perch/shared';
import type { QueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { loginAnswer } from './auth-answers';
import { authCheckQueryKey, signedInCheck } from './get-auth-check';
import { useSessionOpening } from './session-scope';

/** Makes the signed-in user the current user (both sign-in steps end here). */
export function rememberSignedIn(
  queryClient: QueryClient,
  answer: Pick<LoginResponse, 'user' | 'csrfToken'>,
): void {
  queryClient.setQueryData(authCheckQueryKey, signedInCheck(answer.user, answer.csrfToken));
}

export interface LoginInput {
  /** Username or email. */
  username: string;
  password: string;
  rememberMe: boolean;
}

/** What the server records about the signing-in device; the user agent is cut to 100 chars. */
export function buildDeviceInfo(): NonNullable<LoginRequest['deviceInfo']> {
  return {
    userAgent: navigator.userAgent.slice(0, DEVICE_INFO_MAX_LENGTH),
    platform: navigator.platform || undefined,
    language: navigator.language || undefined,
  };
}

/**
 * POST /auth/login: opens a cookie session, or, for an account with two-factor sign-in, asks for
 * the code (POST /auth/login/2fa then opens the session).
 */
export function login(input: LoginInput): Promise<LoginResult> {
  const body: LoginRequest = {
    username: input.username.trim(),
    password: input.password,
    rememberMe: input.rememberMe,
    deviceInfo: buildDeviceInfo(),
  };
  return apiClient.post('/auth/login', body, loginAnswer);
}

/** Signs in and makes the returned user the current user (unless a second step is due). */
export function useLoginMutation() {
  return useSessionOpening(login, (queryClient, answer) => {
    if (!requiresTwoFactor(answer)) rememberSignedIn(queryClient, answer);
  });
}

import {
  DEVICE_INFO_MAX_LENGTH,
  loginResponseSchema,
  type LoginRequest,
  type LoginResponse,
} from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { authCheckQueryKey, signedInCheck } from './get-auth-check';

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

/** POST /auth/login: opens a cookie session. */
export function login(input: LoginInput): Promise<LoginResponse> {
  const body: LoginRequest = {
    username: input.username.trim(),
    password: input.password,
    rememberMe: input.rememberMe,
    deviceInfo: buildDeviceInfo(),
  };
  return apiClient.post('/auth/login', body, loginResponseSchema);
}

/** Signs in and makes the returned user the current user. */
export function useLoginMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: login,
    onSuccess: (data) => {
      queryClient.setQueryData(authCheckQueryKey, signedInCheck(data.user, data.csrfToken));
    },
  });
}

import type { changePasswordRequestSchema } from '@perch/shared';
import type { z } from 'zod';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { useSecurityMutation } from './security-mutation';

export type ChangePasswordRequest = z.input<typeof changePasswordRequestSchema>;

/** POST /auth/change-password: the server signs the other sessions out. */
export function changePassword(body: ChangePasswordRequest): Promise<ApiAnswer<unknown>> {
  return apiClient.requestWithMessage('/auth/change-password', { method: 'POST', body });
}

export function useChangePasswordMutation() {
  return useSecurityMutation('change-password', changePassword);
}

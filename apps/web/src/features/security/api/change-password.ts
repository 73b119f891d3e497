import type { changePasswordRequestSchema } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { securityQueryKeys } from './security-query-keys';

export type ChangePasswordRequest = z.input<typeof changePasswordRequestSchema>;

/** POST /auth/change-password: the server signs the other sessions out. */
export function changePassword(body: ChangePasswordRequest): Promise<ApiAnswer<unknown>> {
  return apiClient.requestWithMessage('/auth/change-password', { method: 'POST', body });
}

export function useChangePasswordMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['security', 'change-password'],
    mutationFn: changePassword,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityQueryKeys.all }),
  });
}

import { verifyInviteResponseSchema } from '@perch/shared';
import { useMutation } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiClient } from '@/lib/api-client';

export type VerifyInviteResult = z.infer<typeof verifyInviteResponseSchema>;

/** POST /auth/verify-invite: whether an invitation code can still be used. */
export function verifyInvite(code: string): Promise<VerifyInviteResult> {
  return apiClient.post('/auth/verify-invite', { code: code.trim() }, verifyInviteResponseSchema);
}

export function useVerifyInviteMutation() {
  return useMutation({ mutationFn: verifyInvite });
}

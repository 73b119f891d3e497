import {
  reauthenticateResponseSchema,
  type ReauthenticateRequest,
  type ReauthenticateResponse,
} from '@perch/shared';
import { useMutation } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';

/**
 * POST /auth/reauthenticate: the password, or a two-factor (or recovery) code. Sensitive changes
 * go through for 5 minutes after; a wrong one counts as a failed sign-in.
 */
export function reauthenticate(proof: ReauthenticateRequest): Promise<ReauthenticateResponse> {
  return apiClient.post('/auth/reauthenticate', proof, reauthenticateResponseSchema);
}

export function useReauthenticateMutation() {
  return useMutation({ mutationKey: ['auth', 'reauthenticate'], mutationFn: reauthenticate });
}

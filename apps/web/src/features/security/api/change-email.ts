import type { ChangeEmailRequest } from '@perch/shared';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { useSecurityMutation } from './security-mutation';

/** POST /auth/change-email: the answer carries the address as stored. */
export function changeEmail(body: ChangeEmailRequest): Promise<ApiAnswer<{ email: string }>> {
  return apiClient.requestWithMessage('/auth/change-email', { method: 'POST', body });
}

export function useChangeEmailMutation() {
  return useSecurityMutation('change-email', changeEmail);
}

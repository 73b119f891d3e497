import { xAccountStatusSchema, type XAccountStatus } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { xAccountStatusQueryKey } from './get-x-account-status';
import { storeAndRefetchLinked } from './linked-queries';

/** POST /auth/twitter/disconnect: forgets the OAuth-connected X account (tokens revoked). */
export function disconnectXAccount(): Promise<XAccountStatus> {
  return apiClient.post('/auth/twitter/disconnect', undefined, xAccountStatusSchema);
}

export function useDisconnectXAccountMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['settings', 'x-disconnect'],
    mutationFn: disconnectXAccount,
    onSuccess: (status) => storeAndRefetchLinked(queryClient, xAccountStatusQueryKey, status),
  });
}

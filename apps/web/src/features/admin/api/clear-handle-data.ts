import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';
import type { HandleTarget } from './delete-handle';
import { useAdminMutation } from './admin-query';

/**
 * DELETE /admin/handles/{id}/data (super admin): drops the handle's tweets and snapshots; its
 * collector starts the backfill again.
 */
export function clearHandleData({ id }: HandleTarget): Promise<ApiAnswer<unknown>> {
  return apiClient.requestWithMessage(`/admin/handles/${id}/data`, { method: 'DELETE' });
}

export function useClearHandleDataMutation() {
  return useAdminMutation(['admin', 'clear-handle-data'], clearHandleData, (queryClient) =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: adminQueryKeys.handles }),
      queryClient.invalidateQueries({ queryKey: adminQueryKeys.processes }),
    ]),
  );
}

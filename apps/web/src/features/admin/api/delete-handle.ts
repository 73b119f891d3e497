import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';
import { useAdminMutation } from './admin-query';

export interface HandleTarget {
  id: number;
  handle: string;
}

/** DELETE /admin/handles/{id}: stops the handle's collector and removes it for every user. */
export function deleteHandleGlobally({ id }: HandleTarget): Promise<ApiAnswer<unknown>> {
  return apiClient.requestWithMessage(`/admin/handles/${id}`, { method: 'DELETE' });
}

/** Global delete; every admin list may have shown the handle, so all of them refresh. */
export function useDeleteHandleMutation() {
  return useAdminMutation(['admin', 'delete-handle'], deleteHandleGlobally, (queryClient) =>
    queryClient.invalidateQueries({ queryKey: adminQueryKeys.all }),
  );
}

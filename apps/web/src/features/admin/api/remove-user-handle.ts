import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';
import { useAdminMutation } from './admin-query';

export interface RemoveUserHandleInput {
  userId: number;
  handleId: number;
  /** The handle's name, for the messages. */
  handle: string;
}

/** DELETE /admin/users/{id}/handles/{handleId}: the user stops monitoring that handle. */
export function removeUserHandle({
  userId,
  handleId,
}: RemoveUserHandleInput): Promise<ApiAnswer<unknown>> {
  return apiClient.requestWithMessage(`/admin/users/${userId}/handles/${handleId}`, {
    method: 'DELETE',
  });
}

/** Removes the link; the user's handles, the users' counts and the system handles follow. */
export function useRemoveUserHandleMutation() {
  return useAdminMutation(
    ['admin', 'remove-user-handle'],
    removeUserHandle,
    (queryClient, _answer, { userId }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: adminQueryKeys.userHandles(userId) }),
        queryClient.invalidateQueries({ queryKey: adminQueryKeys.users }),
        queryClient.invalidateQueries({ queryKey: adminQueryKeys.handles }),
      ]),
  );
}

import { invalidHandleIdsMessage, suspiciousHandleIds, type Handle } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, apiClient } from '@/lib/api-client';
import { handleKeys, handleMutationKeys } from './handle-keys';

export const INVALID_HANDLE_ID_CODE = 'INVALID_HANDLE_ID';

/** DELETE /handles/{id}: stops monitoring a handle. Temporary ids never reach the server. */
export async function removeHandle(id: number): Promise<void> {
  const suspicious = suspiciousHandleIds([id]);
  if (suspicious.length > 0) {
    throw new ApiError(0, invalidHandleIdsMessage(suspicious), INVALID_HANDLE_ID_CODE);
  }
  await apiClient.delete(`/handles/${id}`);
}

interface RemoveHandleContext {
  previous: Handle[] | undefined;
}

/** Removes a handle optimistically and puts it back if the server refuses. */
export function useRemoveHandleMutation() {
  const queryClient = useQueryClient();
  return useMutation<void, Error, Handle, RemoveHandleContext>({
    mutationKey: handleMutationKeys.remove,
    mutationFn: (handle) => removeHandle(handle.id),
    onMutate: async (handle) => {
      await queryClient.cancelQueries({ queryKey: handleKeys.list });
      const previous = queryClient.getQueryData<Handle[]>(handleKeys.list);
      queryClient.setQueryData<Handle[]>(handleKeys.list, (current = []) =>
        current.filter((entry) => entry.id !== handle.id),
      );
      return { previous };
    },
    onError: (_error, _handle, context) => {
      if (context?.previous) queryClient.setQueryData(handleKeys.list, context.previous);
    },
    onSuccess: (_data, handle) => {
      queryClient.removeQueries({ queryKey: handleKeys.detail(handle.handle) });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: handleKeys.list }),
  });
}

import { backfillProgressSchema, type BackfillProgress, type Handle } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { backfillProgressQueryOptions } from './get-backfill-progress';
import { handleKeys, handleMutationKeys } from './handle-keys';

/** POST /handles/{id}/retry: a failed handle goes back in the collection queue. */
export function retryHandle(id: number): Promise<BackfillProgress> {
  return apiClient.post(`/handles/${id}/retry`, undefined, backfillProgressSchema);
}

/**
 * Retries a failed handle. Its record and reading turn to the server's answer at once (pending,
 * no error), so the badge, the analytics and the progress poll all follow the new attempt.
 */
export function useRetryHandleMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: handleMutationKeys.retry,
    mutationFn: (handle: Handle) => retryHandle(handle.id),
    onSuccess: (progress, handle) => {
      queryClient.setQueryData(backfillProgressQueryOptions(handle.handle).queryKey, {
        ...progress,
        completionAcknowledged: false,
      });
      queryClient.setQueryData<Handle[]>(handleKeys.list, (list) =>
        list?.map((entry) =>
          entry.id === handle.id
            ? { ...entry, backfill_status: progress.status, last_error: progress.error ?? null }
            : entry,
        ),
      );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: handleKeys.list }),
  });
}

import { handleResponseSchema, type Handle, type NotificationFilter } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { handleKeys, handleMutationKeys } from './handle-keys';

export interface HandleFilterChange {
  handleId: number;
  filter: NotificationFilter;
}

/** PUT /handles/{id}/notifications/filter: replaces the user's filter of one handle. */
export async function setHandleFilter({ handleId, filter }: HandleFilterChange): Promise<Handle> {
  const data = await apiClient.put(
    `/handles/${handleId}/notifications/filter`,
    filter,
    handleResponseSchema,
  );
  return data.handle;
}

/** Saves a filter; the handle list shows the stored one (as the server normalised it). */
export function useSetHandleFilterMutation() {
  const queryClient = useQueryClient();
  return useMutation<Handle, Error, HandleFilterChange>({
    mutationKey: handleMutationKeys.filter,
    mutationFn: setHandleFilter,
    onSuccess: (updated) => {
      queryClient.setQueryData<Handle[]>(handleKeys.list, (handles) =>
        handles?.map((entry) =>
          entry.id === updated.id
            ? { ...entry, notification_filter: updated.notification_filter }
            : entry,
        ),
      );
    },
  });
}

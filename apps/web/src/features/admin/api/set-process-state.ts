import { adminProcessResponseSchema, type AdminProcess, type AdminProcesses } from '@perch/shared';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { adminQueryKeys } from './admin-query-keys';
import { useAdminMutation } from './admin-query';

export type ProcessAction = 'stop' | 'start';

export interface ProcessActionInput {
  action: ProcessAction;
  handleId: number;
  /** The handle's name, for the messages. */
  handle: string;
}

/**
 * POST /admin/processes/stop or /admin/processes/start (super admin) with `handle_id`: stops a
 * handle's collector (its progress is kept), or starts or resumes it. Answers the collector.
 */
export function setProcessState({
  action,
  handleId,
}: ProcessActionInput): Promise<ApiAnswer<{ process: AdminProcess }>> {
  return apiClient.requestWithMessage(`/admin/processes/${action}`, {
    method: 'POST',
    body: { handle_id: handleId },
    schema: adminProcessResponseSchema,
  });
}

/** Puts the collector the server answered into the table at once, then refreshes the lists. */
export function useProcessActionMutation() {
  return useAdminMutation(['admin', 'process-action'], setProcessState, (queryClient, { data }) => {
    const { process } = data;
    queryClient.setQueryData<AdminProcesses>(adminQueryKeys.processes, (current) =>
      current
        ? {
            ...current,
            processes: current.processes.map((entry) =>
              entry.handle_id === process.handle_id ? process : entry,
            ),
          }
        : current,
    );
    return Promise.all([
      queryClient.invalidateQueries({ queryKey: adminQueryKeys.processes }),
      queryClient.invalidateQueries({ queryKey: adminQueryKeys.handles }),
    ]);
  });
}

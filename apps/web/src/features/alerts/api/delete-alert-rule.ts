import { deletedResponseSchema, type AlertRule } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, apiClient } from '@/lib/api-client';
import { alertKeys, alertMutationKeys } from './alert-keys';
import { updateCachedRules } from './rule-cache';

/**
 * DELETE /alerts/{id}. A 404 means the rule is already gone (deleted in another tab), which is
 * what was asked, so it counts as done.
 */
export async function deleteAlertRule(rule: AlertRule): Promise<AlertRule> {
  try {
    await apiClient.delete(`/alerts/${rule.id}`, deletedResponseSchema);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
  }
  return rule;
}

/** Deletes a rule; it leaves the cached list, and the history is read again. */
export function useDeleteAlertRuleMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: alertMutationKeys.remove,
    mutationFn: deleteAlertRule,
    onSuccess: (deleted) => {
      updateCachedRules(queryClient, (rules) => rules.filter((rule) => rule.id !== deleted.id));
      void queryClient.invalidateQueries({ queryKey: alertKeys.firings });
    },
  });
}

import {
  alertRuleResponseSchema,
  type AlertRule,
  type UpdateAlertRuleRequest,
} from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { alertMutationKeys } from './alert-keys';
import { updateCachedRules, withRule } from './rule-cache';

export interface UpdateAlertRuleVariables {
  id: number;
  changes: UpdateAlertRuleRequest;
}

/** PATCH /alerts/{id}: the fields given replace the stored ones (the handle stays). */
export async function updateAlertRule({
  id,
  changes,
}: UpdateAlertRuleVariables): Promise<AlertRule> {
  const data = await apiClient.patch(`/alerts/${id}`, changes, alertRuleResponseSchema);
  return data.rule;
}

/** Edits or switches a rule; the answer replaces the cached one. */
export function useUpdateAlertRuleMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: alertMutationKeys.update,
    mutationFn: updateAlertRule,
    onSuccess: (rule) => updateCachedRules(queryClient, (rules) => withRule(rules, rule)),
  });
}

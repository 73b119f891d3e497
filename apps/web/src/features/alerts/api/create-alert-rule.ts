import {
  alertRuleResponseSchema,
  type AlertRule,
  type CreateAlertRuleRequest,
} from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { alertMutationKeys } from './alert-keys';
import { updateCachedRules, withRule } from './rule-cache';

/**
 * POST /alerts: a new rule for one of the user's handles. A 400 says which field is wrong, a 404
 * that the handle is not followed, a 409 that the limit is reached, each in the server's words.
 */
export async function createAlertRule(body: CreateAlertRuleRequest): Promise<AlertRule> {
  const data = await apiClient.post('/alerts', body, alertRuleResponseSchema);
  return data.rule;
}

/** Creates a rule; the answer joins the cached list, and the limit count with it. */
export function useCreateAlertRuleMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: alertMutationKeys.create,
    mutationFn: createAlertRule,
    onSuccess: (rule) => updateCachedRules(queryClient, (rules) => withRule(rules, rule)),
  });
}

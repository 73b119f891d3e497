import { alertRuleListSchema, type AlertRuleList } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { alertKeys } from './alert-keys';

/** GET /alerts: the user's rules, oldest first, and how many one user may keep. */
export function getAlertRules(signal?: AbortSignal): Promise<AlertRuleList> {
  return apiClient.get('/alerts', alertRuleListSchema, { signal });
}

export function alertRulesQueryOptions() {
  return queryOptions({
    queryKey: alertKeys.rules,
    queryFn: ({ signal }) => getAlertRules(signal),
  });
}

export function useAlertRulesQuery() {
  return useQuery(alertRulesQueryOptions());
}

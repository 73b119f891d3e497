import { alertRuleListSchema, type AlertRuleList } from '@perch/shared';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { ALERTS_POLL_MS } from '@/lib/polling/intervals';
import { alertKeys } from './alert-keys';

/** GET /alerts: the user's rules, oldest first, and how many one user may keep. */
export function getAlertRules(signal?: AbortSignal): Promise<AlertRuleList> {
  return apiClient.get('/alerts', alertRuleListSchema, { signal });
}

/** Read again every minute while the Alerts page is open: another tab or device may edit them. */
export function alertRulesQueryOptions() {
  return queryOptions({
    queryKey: alertKeys.rules,
    queryFn: ({ signal }) => getAlertRules(signal),
    refetchInterval: ALERTS_POLL_MS,
  });
}

export function useAlertRulesQuery() {
  return useQuery(alertRulesQueryOptions());
}

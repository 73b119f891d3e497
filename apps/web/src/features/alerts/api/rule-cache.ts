import type { AlertRule, AlertRuleList } from '@perch/shared';
import type { QueryClient } from '@tanstack/react-query';
import { alertKeys } from './alert-keys';

/**
 * The rule list after a change, written into the cache from the server's answer: the page shows
 * the change at once, without reading the whole list again.
 */
export function updateCachedRules(
  queryClient: QueryClient,
  change: (rules: AlertRule[]) => AlertRule[],
): void {
  queryClient.setQueryData<AlertRuleList>(alertKeys.rules, (list) =>
    list ? { ...list, rules: change(list.rules) } : list,
  );
}

/** The list with `rule` in place of the one of its id, or added at the end (oldest first). */
export function withRule(rules: AlertRule[], rule: AlertRule): AlertRule[] {
  return rules.some((entry) => entry.id === rule.id)
    ? rules.map((entry) => (entry.id === rule.id ? rule : entry))
    : [...rules, rule];
}

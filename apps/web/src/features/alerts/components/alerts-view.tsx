import { Stack } from '@mantine/core';
import { useMemo } from 'react';
import { useAlertRulesQuery } from '../api/get-alert-rules';
import { HistorySection } from './history-section';
import { RulesSection, type HandlesQuery } from './rules-section';

export type { HandlesQuery } from './rules-section';

export interface AlertsViewProps {
  /** The followed handles' query of the handles feature. */
  handlesQuery: HandlesQuery;
}

/** Names once each, whatever their case, in the order first seen. */
function uniqueNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.filter((name) => {
    const key = name.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The Alerts page's body: the rules per handle, then the history of what fired. Each section
 * loads, fails and retries on its own.
 */
export function AlertsView({ handlesQuery }: AlertsViewProps) {
  const { data: rulesList } = useAlertRulesQuery();
  const followed = useMemo(
    () => handlesQuery.data?.map((handle) => handle.handle),
    [handlesQuery.data],
  );
  // The history may hold a handle unfollowed since: its rules still name it.
  const filterHandles = useMemo(
    () =>
      uniqueNames([...(followed ?? []), ...(rulesList?.rules.map((rule) => rule.handle) ?? [])]),
    [followed, rulesList],
  );
  return (
    <Stack gap="lg">
      <RulesSection handlesQuery={handlesQuery} handles={followed} />
      <HistorySection handles={filterHandles} />
    </Stack>
  );
}

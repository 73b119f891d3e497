import { Badge, Text } from '@mantine/core';
import type { LoginHistoryEntry } from '@perch/shared';
import { ResponsiveList, type ListColumn } from '@/components/responsive-list';
import { QueryStates } from '@/components/section-states';
import { useLoginHistoryQuery } from '../api/get-login-history';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { ipColumn, timeColumn } from './columns';
import { SecuritySection } from './security-section';

const COLUMNS: ListColumn<LoginHistoryEntry>[] = [
  timeColumn(),
  {
    header: 'Result',
    card: 'aside',
    nowrap: true,
    cell: (entry) => (
      <Badge color={entry.success ? 'green' : 'red'} variant="light" radius="sm" size="sm">
        {entry.success ? SECURITY_TEXTS.loginSucceeded : SECURITY_TEXTS.loginFailed}
      </Badge>
    ),
  },
  {
    header: 'Device',
    cell: (entry) => (
      <Text size="sm" title={entry.userAgent ?? undefined}>
        {entry.device}
      </Text>
    ),
  },
  ipColumn((entry) => entry.ip),
];

/** The latest sign-in attempts on the account: when, whether they worked, device and IP. */
export function LoginHistorySection() {
  const historyQuery = useLoginHistoryQuery();
  const entries = historyQuery.data;
  return (
    <SecuritySection section="login-history">
      <QueryStates
        query={historyQuery}
        loadingLabel="Loading sign-in history"
        errorTitle={SECURITY_TEXTS.loadLoginHistoryFailed}
        errorTestId="login-history-error"
        emptyText={SECURITY_TEXTS.noLoginHistory}
        emptyTestId="login-history-empty"
      />
      {entries && entries.length > 0 ? (
        <ResponsiveList
          label={SECURITY_TEXTS.loginHistoryTitle}
          items={entries}
          itemKey={(entry) => entry.id}
          columns={COLUMNS}
          itemTestId="login-history-row"
          itemLabel={(entry) =>
            `${entry.success ? SECURITY_TEXTS.loginSucceeded : SECURITY_TEXTS.loginFailed}: ${entry.device}`
          }
          minWidth={560}
        />
      ) : null}
    </SecuritySection>
  );
}

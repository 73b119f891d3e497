import { Badge, Text } from '@mantine/core';
import type { LoginHistoryEntry } from '@perch/shared';
import { IconHistory } from '@tabler/icons-react';
import { IconSection } from '@/components/icon-section';
import { ResponsiveList, type ListColumn } from '@/components/responsive-list';
import { EmptyText, QueryStates } from '@/components/section-states';
import { formatDateTime } from '@/lib/format';
import { useLoginHistoryQuery } from '../api/get-login-history';
import { SECURITY_TEXTS } from '../utils/security-texts';

const COLUMNS: ListColumn<LoginHistoryEntry>[] = [
  {
    header: 'Time',
    card: 'title',
    nowrap: true,
    cell: (entry) => (
      <Text size="sm" fw={500}>
        {formatDateTime(entry.timestamp)}
      </Text>
    ),
  },
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
  {
    header: 'IP address',
    cell: (entry) => (
      <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
        {entry.ip}
      </Text>
    ),
  },
];

/** The latest sign-in attempts on the account: when, whether they worked, device and IP. */
export function LoginHistorySection() {
  const historyQuery = useLoginHistoryQuery();
  const entries = historyQuery.data;
  return (
    <IconSection
      title={SECURITY_TEXTS.loginHistoryTitle}
      icon={IconHistory}
      color="teal"
      description={SECURITY_TEXTS.loginHistoryDescription}
      testId="security-login-history"
    >
      <QueryStates
        query={historyQuery}
        loadingLabel="Loading sign-in history"
        errorTitle={SECURITY_TEXTS.loadLoginHistoryFailed}
        errorTestId="login-history-error"
      />
      {entries && entries.length === 0 ? (
        <EmptyText testId="login-history-empty">{SECURITY_TEXTS.noLoginHistory}</EmptyText>
      ) : null}
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
    </IconSection>
  );
}

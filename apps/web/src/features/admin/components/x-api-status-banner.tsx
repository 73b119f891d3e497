import { Alert, Stack, Text } from '@mantine/core';
import { X_USAGE_MESSAGES, type XUsageSummary } from '@perch/shared';
import { IconKeyOff, IconPigMoney, IconWallet } from '@tabler/icons-react';
import { formatDateTime } from '@/lib/format';
import { formatRelative } from '@/lib/format';
import { useXUsageQuery } from '../api/get-x-usage';
import { X_WEB_TEXTS } from '../utils/x-web-texts';

type Credentials = XUsageSummary['credentials'];

/** 'Refused since Mar 10, 11:00 AM · next check in 4 min', from what the server knows. */
function ProbeTimes({ credentials, now }: { credentials: Credentials; now: number }) {
  const { since, next_probe_at: nextProbeAt } = credentials;
  if (!since && !nextProbeAt) return null;
  return (
    <Text size="xs" c="dimmed" mt={4}>
      {since ? (
        <>
          Since <time dateTime={since}>{formatDateTime(since)}</time>
        </>
      ) : null}
      {since && nextProbeAt ? ' · ' : null}
      {nextProbeAt ? (
        <>
          Next check{' '}
          <time dateTime={nextProbeAt} title={formatDateTime(nextProbeAt)}>
            {formatRelative(nextProbeAt, now)}
          </time>
        </>
      ) : null}
    </Text>
  );
}

/**
 * X refused the credentials (401/403) or the credits ran out (402): collection waits. With the
 * x-web source, 'refused' means no collector account of the pool can collect.
 */
function CredentialsAlert({
  credentials,
  now,
  xWeb,
}: {
  credentials: Credentials;
  now: number;
  xWeb: boolean;
}) {
  const refused = credentials.state === 'auth';
  const title = refused ? X_USAGE_MESSAGES.credentialsWaiting : X_USAGE_MESSAGES.creditsDepleted;
  // X's own words, when they add something to the title.
  const said = credentials.detail && credentials.detail !== title ? credentials.detail : null;
  return (
    <Alert
      color={refused ? 'orange' : 'red'}
      variant="light"
      icon={refused ? <IconKeyOff size={18} /> : <IconWallet size={18} />}
      title={title}
      data-testid="x-credentials-banner"
    >
      <Text size="sm">
        {xWeb
          ? X_WEB_TEXTS.noUsableAccount
          : refused
            ? X_USAGE_MESSAGES.credentialsRefused
            : X_USAGE_MESSAGES.creditsDepletedDetail}
      </Text>
      {said ? (
        <Text size="xs" mt={4}>
          {xWeb ? X_WEB_TEXTS.why : 'X said'}: {said}
        </Text>
      ) : null}
      <ProbeTimes credentials={credentials} now={now} />
    </Alert>
  );
}

/** The whole daily limit is spent: new tweets wait for 00:00 UTC. */
function BudgetAlert({ resumesAt, now }: { resumesAt: string; now: number }) {
  return (
    <Alert
      color="yellow"
      variant="light"
      icon={<IconPigMoney size={18} />}
      data-testid="x-budget-banner"
    >
      <Text size="sm" fw={500}>
        {X_USAGE_MESSAGES.budgetPaused}
      </Text>
      <Text size="xs" c="dimmed" mt={4}>
        Resumes{' '}
        <time dateTime={resumesAt} title={formatDateTime(resumesAt)}>
          {formatRelative(resumesAt, now)}
        </time>
      </Text>
    </Alert>
  );
}

/**
 * The top of the Admin page while X collection waits: for credentials X refused or credits that
 * ran out (Perch probes every 5 minutes and resumes by itself), and while the daily budget has
 * paused collection. Nothing otherwise, nor while the usage is loading or failed to load (the
 * usage card says so).
 */
export function XApiStatusBanner() {
  const { data, dataUpdatedAt } = useXUsageQuery();
  if (!data || data.source === 'demo') return null;
  const blocked = data.credentials.state !== 'ok';
  if (!blocked && !data.budget.paused) return null;
  return (
    <Stack gap="xs">
      {blocked ? (
        <CredentialsAlert
          credentials={data.credentials}
          now={dataUpdatedAt}
          xWeb={data.source === 'x-web'}
        />
      ) : null}
      {data.budget.paused ? (
        <BudgetAlert resumesAt={data.budget.resumes_at} now={dataUpdatedAt} />
      ) : null}
    </Stack>
  );
}

import { Group, Paper, Progress, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import {
  X_BUDGET_CUT_PERCENT,
  X_BUDGET_KIND_LABELS,
  X_BUDGET_KINDS,
  X_METRIC_REFRESH_LABELS,
  X_USAGE_MESSAGES,
  type XEndpointBudget,
  type XReadTotals,
  type XUsageHandle,
  type XUsageSummary,
} from '@perch/shared';
import type { ReactNode } from 'react';
import { type ListColumn, ResponsiveList } from '@/components/responsive-list';
import { EmptyText } from '@/components/section-states';
import { formatDateTime } from '@/lib/format';
import { formatRelative } from '@/lib/format';
import { useXUsageQuery } from '../api/get-x-usage';
import { budgetPercent, formatReads, formatUsd } from '../utils/x-usage-format';
import { X_USAGE_TEXTS } from '../utils/x-usage-texts';
import { LookBadge } from './look-badge';
import { X_WEB_TEXTS } from '../utils/x-web-texts';
import { AdminQuerySection } from './admin-query-section';
import { ADMIN_SECTIONS } from './admin-sections';

function SubTitle({ children }: { children: ReactNode }) {
  return (
    <Title order={4} fz="sm" fw={600}>
      {children}
    </Title>
  );
}

interface StatProps {
  label: string;
  usd: number;
  /** The line under the sum. */
  hint: string;
  testId: string;
}

/** One sum of the card: what it is, the USD, and the reads behind it. */
function Stat({ label, usd, hint, testId }: StatProps) {
  return (
    <Paper withBorder radius="md" p="sm" data-testid={testId}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fz="xl" fw={700} lh={1.3}>
        {formatUsd(usd)}
      </Text>
      <Text size="xs" c="dimmed">
        {hint}
      </Text>
    </Paper>
  );
}

function Totals({ data }: { data: XUsageSummary }) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
      <Stat
        label={X_USAGE_TEXTS.today}
        usd={data.today.usd}
        hint={formatReads(data.today.post_reads, data.today.user_reads)}
        testId="x-usage-today"
      />
      <Stat
        label={X_USAGE_TEXTS.month}
        usd={data.month.usd}
        hint={formatReads(data.month.post_reads, data.month.user_reads)}
        testId="x-usage-month"
      />
      <Stat
        label={X_USAGE_TEXTS.projected}
        usd={data.month.projected_usd}
        hint={X_USAGE_TEXTS.projectedHint}
        testId="x-usage-projected"
      />
    </SimpleGrid>
  );
}

/**
 * The X_METRIC_REFRESH preset in use and what a typical handle costs a month under it (the
 * server's estimate from the schedule and the prices).
 */
function MetricRefresh({ data }: { data: XUsageSummary }) {
  const { preset, typical_handle: typical } = data.metric_refresh;
  return (
    <Stack gap={2} data-testid="x-usage-metric-refresh">
      <Text size="sm">{X_USAGE_MESSAGES.metricRefresh(X_METRIC_REFRESH_LABELS[preset])}</Text>
      <Text size="xs" c="dimmed">
        {X_USAGE_MESSAGES.typicalHandleCost(formatUsd(typical.month_usd), typical.posts_per_day)}
      </Text>
    </Stack>
  );
}

function budgetColor(percent: number): string {
  if (percent >= X_BUDGET_CUT_PERCENT.poll) return 'red';
  if (percent >= X_BUDGET_CUT_PERCENT.backfill) return 'orange';
  if (percent >= X_BUDGET_CUT_PERCENT.metrics) return 'yellow';
  return 'teal';
}

/** What the limit stops now, in words. */
function cutState(budget: XUsageSummary['budget']): string {
  if (budget.paused) return X_USAGE_MESSAGES.budgetPaused;
  if (budget.cut.length === 0) return X_USAGE_TEXTS.allRunning;
  return X_USAGE_MESSAGES.budgetCutting(
    budget.cut
      .map((kind, index) =>
        index === 0 ? X_BUDGET_KIND_LABELS[kind] : X_BUDGET_KIND_LABELS[kind].toLowerCase(),
      )
      .join(' and '),
  );
}

/** Today's spend against the daily limit, and which work the limit stops now. */
function DailyBudget({ data, now }: { data: XUsageSummary; now: number }) {
  const { budget } = data;
  if (budget.daily_limit_usd === null) {
    return (
      <Text size="sm" c="dimmed" data-testid="x-usage-budget">
        {X_USAGE_MESSAGES.noLimit}
      </Text>
    );
  }
  const percent = budgetPercent(data.today.usd, budget.daily_limit_usd);
  return (
    <Stack gap={6} data-testid="x-usage-budget">
      <Group justify="space-between" gap="xs">
        <Text size="sm">
          {X_USAGE_TEXTS.budgetSpent(
            formatUsd(data.today.usd),
            formatUsd(budget.daily_limit_usd),
            percent,
          )}
        </Text>
        {budget.paused ? <LookBadge color="red">Paused</LookBadge> : null}
      </Group>
      <Progress
        value={percent}
        color={budgetColor(percent)}
        size="md"
        aria-label={X_USAGE_TEXTS.budgetUsed}
      />
      <Text size="sm" c={budget.cut.length > 0 ? undefined : 'dimmed'}>
        {cutState(budget)}
        {budget.cut.length > 0 ? (
          <Text span size="xs" c="dimmed">
            {' · '}
            <time dateTime={budget.resumes_at} title={formatDateTime(budget.resumes_at)}>
              {formatRelative(budget.resumes_at, now)}
            </time>
          </Text>
        ) : null}
      </Text>
      <Group gap={6} wrap="wrap">
        {X_BUDGET_KINDS.map((kind) => (
          <LookBadge key={kind} color={budget.cut.includes(kind) ? 'red' : 'gray'}>
            {X_USAGE_TEXTS.cutAt(
              X_BUDGET_KIND_LABELS[kind],
              X_BUDGET_CUT_PERCENT[kind],
              budget.cut.includes(kind),
            )}
          </LookBadge>
        ))}
      </Group>
    </Stack>
  );
}

function PeriodCell({ totals }: { totals: XReadTotals }) {
  return (
    <>
      <Text size="sm" fw={500}>
        {formatUsd(totals.usd)}
      </Text>
      <Text size="xs" c="dimmed">
        {formatReads(totals.post_reads, totals.user_reads)}
      </Text>
    </>
  );
}

const handleName = (row: XUsageHandle) =>
  row.handle === null ? X_USAGE_MESSAGES.unknownHandle : `@${row.handle}`;

const HANDLE_COLUMNS: readonly ListColumn<XUsageHandle>[] = [
  {
    header: 'Handle',
    card: 'title',
    cell: (row) => (
      <Text fw={600} size="sm" c={row.handle === null ? 'dimmed' : undefined}>
        {handleName(row)}
      </Text>
    ),
  },
  { header: 'Today', align: 'right', cell: (row) => <PeriodCell totals={row.today} /> },
  { header: 'This month', align: 'right', cell: (row) => <PeriodCell totals={row.month} /> },
];

const rateLeft = (budget: { remaining: number | null; limit: number | null }) =>
  X_USAGE_TEXTS.left(budget.remaining, budget.limit);

const resetsIn = (resetAt: string | null, now: number) =>
  resetAt ? formatRelative(resetAt, now) : '—';

/** The requests left per endpoint (15-minute windows) and the app's 24 hours. */
function RateLimits({ data, now }: { data: XUsageSummary; now: number }) {
  const status = data.rate_status;
  if (!status || (status.endpoints.length === 0 && status.app_day === null)) {
    return <EmptyText testId="x-usage-no-rate-limits">{X_USAGE_MESSAGES.noRateStatus}</EmptyText>;
  }
  const columns: readonly ListColumn<XEndpointBudget>[] = [
    {
      header: 'Endpoint',
      card: 'title',
      cell: (budget) => (
        <Text size="sm" ff="monospace">
          {budget.endpoint}
        </Text>
      ),
    },
    { header: 'Left', cell: rateLeft },
    { header: 'Resets', cell: (budget) => resetsIn(budget.resetAt, now) },
  ];
  return (
    <Stack gap="xs">
      {status.endpoints.length > 0 ? (
        <ResponsiveList
          label={X_USAGE_TEXTS.rateLimits}
          items={status.endpoints}
          itemKey={(budget) => budget.endpoint}
          itemTestId="x-rate-limit-row"
          itemLabel={(budget) => budget.endpoint}
          columns={columns}
          minWidth={420}
        />
      ) : null}
      {status.app_day ? (
        <Text size="sm" data-testid="x-rate-limit-app-day">
          {X_USAGE_TEXTS.appDay}: {rateLeft(status.app_day)}
          {status.app_day.resetAt ? `, resets ${formatRelative(status.app_day.resetAt, now)}` : ''}
        </Text>
      ) : null}
    </Stack>
  );
}

function Usage({ data, now }: { data: XUsageSummary; now: number }) {
  if (data.source === 'demo') {
    return <EmptyText testId="x-usage-demo">{X_USAGE_MESSAGES.demoSource}</EmptyText>;
  }
  if (data.source === 'x-web') {
    // Not billed: only the pool's limits (summed over its usable accounts) mean something.
    return (
      <Stack gap="lg">
        <EmptyText testId="x-usage-x-web">{X_WEB_TEXTS.usageNotBilled}</EmptyText>
        <Stack gap="xs">
          <SubTitle>{X_USAGE_TEXTS.rateLimits}</SubTitle>
          <RateLimits data={data} now={now} />
        </Stack>
      </Stack>
    );
  }
  const noReads = data.month.post_reads === 0 && data.month.user_reads === 0;
  return (
    <Stack gap="lg">
      <Totals data={data} />
      <MetricRefresh data={data} />
      <Stack gap="xs">
        <SubTitle>{X_USAGE_TEXTS.dailyLimit}</SubTitle>
        <DailyBudget data={data} now={now} />
      </Stack>
      <Stack gap="xs">
        <SubTitle>{X_USAGE_TEXTS.perHandle}</SubTitle>
        {noReads || data.handles.length === 0 ? (
          <EmptyText testId="x-usage-empty">{X_USAGE_MESSAGES.noReads}</EmptyText>
        ) : (
          <ResponsiveList
            label={X_USAGE_TEXTS.perHandle}
            items={data.handles}
            itemKey={(row) => row.handle_id ?? 'unknown'}
            itemTestId="x-usage-handle-row"
            itemLabel={handleName}
            columns={HANDLE_COLUMNS}
            minWidth={460}
          />
        )}
      </Stack>
      <Stack gap="xs">
        <SubTitle>{X_USAGE_TEXTS.rateLimits}</SubTitle>
        <RateLimits data={data} now={now} />
      </Stack>
      <Text size="xs" c="dimmed" data-testid="x-usage-prices">
        {X_USAGE_TEXTS.prices(
          formatUsd(data.prices.post_read_usd),
          formatUsd(data.prices.user_read_usd),
        )}
      </Text>
    </Stack>
  );
}

/**
 * 'X API usage': what reading from X cost today, this month and by the month's end at the pace
 * so far; the metric-refresh preset and a typical handle's monthly cost under it; the daily limit and the work it cuts (metric refresh, then backfill, then new tweets);
 * the cost per handle, the rate limits left and the prices. Fetched every 30 s.
 */
export function XUsageSection() {
  const query = useXUsageQuery();
  return (
    <AdminQuerySection section={ADMIN_SECTIONS.xUsage} query={query}>
      {query.data ? <Usage data={query.data} now={query.dataUpdatedAt} /> : null}
    </AdminQuerySection>
  );
}

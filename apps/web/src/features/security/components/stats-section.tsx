import {
  Box,
  Group,
  List,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  ThemeIcon,
} from '@mantine/core';
import {
  DEFAULT_SECURITY_TIME_RANGE,
  SECURITY_TIME_RANGES,
  type SecurityStats,
  type SecurityTimeRange,
} from '@perch/shared';
import {
  IconBan,
  IconDevices,
  IconLogin,
  IconShieldCheck,
  IconShieldExclamation,
  IconUserX,
  type Icon,
} from '@tabler/icons-react';
import { useState } from 'react';
import { EmptyText, QueryStates } from '@/components/section-states';
import { formatCount } from '@/lib/format';
import { useSecurityStatsQuery } from '../api/get-security-stats';
import { SEVERITY_LOOK } from '../utils/looks';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { SecuritySection } from './security-section';
import { SeverityBadge } from './severity-badge';

type CountKey = 'failedLogins' | 'successfulLogins' | 'activeSessions' | 'blockedRequests';

const COUNTS: { key: CountKey; label: string; icon: Icon; color: string }[] = [
  { key: 'failedLogins', label: SECURITY_TEXTS.failedLogins, icon: IconUserX, color: 'red' },
  {
    key: 'successfulLogins',
    label: SECURITY_TEXTS.successfulLogins,
    icon: IconLogin,
    color: 'teal',
  },
  { key: 'activeSessions', label: SECURITY_TEXTS.activeSessions, icon: IconDevices, color: 'cyan' },
  { key: 'blockedRequests', label: SECURITY_TEXTS.blockedRequests, icon: IconBan, color: 'grape' },
];

/** Four counts side by side once the card is wide enough, two by two on phones. */
const COUNT_COLUMNS = { base: 2, '640px': 4 } as const;

function CountTile({
  label,
  value,
  icon: TileIcon,
  color,
  testId,
}: {
  label: string;
  value: number;
  icon: Icon;
  color: string;
  testId: string;
}) {
  return (
    <Paper withBorder radius="md" p="sm" data-testid={testId} data-value={value} miw={0}>
      <Group gap="xs" wrap="nowrap" align="flex-start" mb={4}>
        <ThemeIcon variant="light" color={color} size="sm" radius="sm" aria-hidden>
          <TileIcon size={14} />
        </ThemeIcon>
        <Text size="xs" c="dimmed" lh={1.3} miw={0}>
          {label}
        </Text>
      </Group>
      <Text fz={26} fw={700} lh={1.2}>
        {formatCount(value)}
      </Text>
    </Paper>
  );
}

function RiskPanel({ stats }: { stats: SecurityStats }) {
  const look = SEVERITY_LOOK[stats.riskLevel];
  const calm = stats.riskLevel === 'low';
  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      data-testid="risk-level"
      data-level={stats.riskLevel}
      style={{ borderLeft: `4px solid var(--mantine-color-${look.color}-filled)` }}
    >
      <Group gap="sm" wrap="nowrap" align="flex-start">
        <ThemeIcon variant="light" color={look.color} size="lg" radius="md" aria-hidden>
          {calm ? <IconShieldCheck size={20} /> : <IconShieldExclamation size={20} />}
        </ThemeIcon>
        <Stack gap={6} miw={0}>
          <Group gap="xs">
            <Text fw={600} size="sm">
              {SECURITY_TEXTS.riskLevel}
            </Text>
            <SeverityBadge severity={stats.riskLevel} size="lg" />
          </Group>
          {stats.riskReasons.length > 0 ? (
            <List size="sm" spacing={2} aria-label="Why">
              {stats.riskReasons.map((reason) => (
                <List.Item key={reason}>{reason}</List.Item>
              ))}
            </List>
          ) : (
            <Text size="sm" c="dimmed">
              {SECURITY_TEXTS.noRiskReasons}
            </Text>
          )}
        </Stack>
      </Group>
    </Paper>
  );
}

/**
 * The counts of the chosen period and the risk level with its reasons (failed
 * sign-ins above 10 are a threat, above 5 a medium risk, plain HTTP critical), refreshed every
 * minute.
 */
export function StatsSection() {
  const [timeRange, setTimeRange] = useState<SecurityTimeRange>(DEFAULT_SECURITY_TIME_RANGE);
  const statsQuery = useSecurityStatsQuery(timeRange);
  const stats = statsQuery.data;

  return (
    <SecuritySection
      section="stats"
      actions={
        <SegmentedControl
          size="xs"
          aria-label={SECURITY_TEXTS.timeRangeLabel}
          value={timeRange}
          onChange={(value) => setTimeRange(value as SecurityTimeRange)}
          data={SECURITY_TIME_RANGES.map((value) => ({
            value,
            label: SECURITY_TEXTS.timeRanges[value],
          }))}
        />
      }
    >
      <QueryStates
        query={statsQuery}
        loadingLabel="Loading security statistics"
        skeletonRows={2}
        errorTitle={SECURITY_TEXTS.loadStatsFailed}
        errorTestId="stats-error"
      />
      {stats === null ? (
        <EmptyText testId="stats-unavailable">{SECURITY_TEXTS.statsUnavailable}</EmptyText>
      ) : null}
      {stats ? (
        <Box
          aria-busy={statsQuery.isPlaceholderData}
          style={{ opacity: statsQuery.isPlaceholderData ? 0.6 : 1, transition: 'opacity 150ms' }}
        >
          <SimpleGrid type="container" cols={COUNT_COLUMNS} spacing="sm" mb="sm">
            {COUNTS.map((count) => (
              <CountTile
                key={count.key}
                label={count.label}
                value={stats[count.key]}
                icon={count.icon}
                color={count.color}
                testId={`stat-${count.key}`}
              />
            ))}
          </SimpleGrid>
          <RiskPanel stats={stats} />
        </Box>
      ) : null}
    </SecuritySection>
  );
}

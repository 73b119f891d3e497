import { Button, Group, Loader, SegmentedControl, Select } from '@mantine/core';
import { PERIOD_MONTH, PERIOD_WEEK, type CompleteAnalytics } from '@perch/shared';
import { IconAt, IconRefresh } from '@tabler/icons-react';
import { ExportMenu } from './export-menu';

const PERIOD_OPTIONS = [
  { value: String(PERIOD_WEEK), label: 'Week' },
  { value: String(PERIOD_MONTH), label: 'Month' },
];

export interface AnalyticsToolbarProps {
  /** The handles to pick from, by name. */
  handles: readonly string[];
  selectedHandle: string | null;
  onSelectHandle: (handle: string) => void;
  period: number;
  onPeriodChange: (period: number) => void;
  onRefresh: () => void;
  isRefreshing: boolean;
  /** The payload on screen, for the exports. */
  data: CompleteAnalytics | undefined;
}

/** Handle picker, week/month switch, Refresh and Export. */
export function AnalyticsToolbar({
  handles,
  selectedHandle,
  onSelectHandle,
  period,
  onPeriodChange,
  onRefresh,
  isRefreshing,
  data,
}: AnalyticsToolbarProps) {
  const selected =
    handles.find((name) => name.toLowerCase() === selectedHandle?.toLowerCase()) ?? null;
  return (
    <Group justify="space-between" gap="sm" wrap="wrap">
      <Select
        aria-label="Handle"
        placeholder={handles.length > 0 ? 'Pick a handle' : 'No handles yet'}
        data={handles.map((name) => ({ value: name, label: name }))}
        value={selected}
        onChange={(value) => {
          if (value) onSelectHandle(value);
        }}
        leftSection={<IconAt size={16} />}
        allowDeselect={false}
        searchable={handles.length > 6}
        nothingFoundMessage="No such handle"
        disabled={handles.length === 0}
        w={{ base: '100%', xs: 240 }}
        data-testid="handle-picker"
      />
      {/*
        On a phone the controls fill their own row under the picker; on the narrowest ones the
        buttons move under the week/month switch rather than squeezing it.
      */}
      <Group gap="xs" wrap="wrap" w={{ base: '100%', xs: 'auto' }}>
        <SegmentedControl
          aria-label="Time range"
          flex={{ base: '1 0 auto', xs: 'none' }}
          data={PERIOD_OPTIONS}
          value={String(period)}
          onChange={(value) => onPeriodChange(Number(value))}
          data-testid="period-switch"
        />
        <Group gap="xs" wrap="nowrap" flex={{ base: '1 0 auto', xs: 'none' }}>
          {/* Stays clickable while a refresh runs: a click then says why nothing happens. */}
          <Button
            variant="light"
            flex={{ base: 1, xs: 'none' }}
            leftSection={
              isRefreshing ? <Loader size={14} color="currentColor" /> : <IconRefresh size={16} />
            }
            onClick={onRefresh}
            aria-busy={isRefreshing}
            disabled={!selectedHandle}
            data-testid="refresh-analytics"
          >
            Refresh
          </Button>
          <ExportMenu data={data} />
        </Group>
      </Group>
    </Group>
  );
}

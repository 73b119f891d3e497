import {
  Box,
  Button,
  Group,
  NativeSelect,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import {
  SECURITY_EVENT_TYPES,
  SECURITY_MESSAGES,
  SEVERITIES,
  type SecurityEvent,
  type SecurityEventsQuery,
  type Severity,
} from '@perch/shared';
import { IconChevronLeft, IconChevronRight, IconFilterOff } from '@tabler/icons-react';
import { useState } from 'react';
import { ExportButtons, type ExportChoice } from '@/components/export-buttons';
import { ResponsiveList, type ListColumn } from '@/components/responsive-list';
import { EmptyText, QueryStates } from '@/components/section-states';
import { securityExportUrl, type SecurityExportFormat } from '../api/export-url';
import { useSecurityEventsQuery } from '../api/get-security-events';
import { endOfDayIso, formatEventType, startOfDayIso } from '../utils/format';
import { SEVERITY_LOOK } from '../utils/looks';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { timeColumn } from './columns';
import { SecuritySection } from './security-section';
import { SeverityBadge } from './severity-badge';

interface EventFilters {
  eventType: string;
  severity: Severity | '';
  /** Local calendar days, 'YYYY-MM-DD', as the date inputs hold them. */
  from: string;
  to: string;
}

const NO_FILTERS: EventFilters = { eventType: '', severity: '', from: '', to: '' };

/** Filters side by side once the card is wide enough: four, two, or one per row. */
const FILTER_COLUMNS = { base: 1, '480px': 2, '860px': 4 } as const;

const EXPORTS: readonly ExportChoice<SecurityExportFormat>[] = [
  { format: 'json', label: SECURITY_TEXTS.exportJson },
  { format: 'csv', label: SECURITY_TEXTS.exportCsv },
];

const COLUMNS: ListColumn<SecurityEvent>[] = [
  timeColumn(),
  {
    header: 'Severity',
    card: 'aside',
    nowrap: true,
    cell: (event) => <SeverityBadge severity={event.severity} />,
  },
  {
    header: 'Event',
    cell: (event) => <Text size="sm">{formatEventType(event.eventType)}</Text>,
  },
  {
    header: 'IP address',
    cell: (event) => (
      <Text size="sm" ff="monospace" style={{ whiteSpace: 'nowrap' }}>
        {event.ip ?? '—'}
      </Text>
    ),
  },
  {
    header: 'Description',
    card: 'wide',
    cell: (event) => (
      <Stack gap={0}>
        <Text size="sm">{event.description}</Text>
        {event.actor ? (
          <Text size="xs" c="dimmed">
            by {event.actor}
          </Text>
        ) : null}
      </Stack>
    ),
  },
];

/** Whether the end day comes before the start day (both 'YYYY-MM-DD', so text order works). */
function isInverted({ from, to }: EventFilters): boolean {
  return from !== '' && to !== '' && to < from;
}

function toQuery(filters: EventFilters, limit: number, offset: number): SecurityEventsQuery {
  const inverted = isInverted(filters);
  return {
    eventType: filters.eventType || undefined,
    severity: filters.severity || undefined,
    startDate: filters.from && !inverted ? (startOfDayIso(filters.from) ?? undefined) : undefined,
    endDate: filters.to && !inverted ? (endOfDayIso(filters.to) ?? undefined) : undefined,
    limit,
    offset,
  };
}

/**
 * Events a page: fewer than the API's default of 50, so a page of stacked cards on a phone
 * stays a few screens long.
 */
export const EVENTS_PAGE_SIZE = 20;

export interface EventsSectionProps {
  /** Events per page. */
  pageSize?: number;
}

/**
 * The account's security events, newest first: filtered by type, severity and days, paged by
 * limit and offset with the total, and exported as JSON or CSV. A 404 reads as no events; any
 * other failure says 'Failed to load security events'.
 */
export function EventsSection({ pageSize = EVENTS_PAGE_SIZE }: EventsSectionProps) {
  const [filters, setFilters] = useState<EventFilters>(NO_FILTERS);
  const [offset, setOffset] = useState(0);
  const eventsQuery = useSecurityEventsQuery(toQuery(filters, pageSize, offset));
  const page = eventsQuery.data;
  const filtered =
    filters.eventType !== '' || filters.severity !== '' || filters.from !== '' || filters.to !== '';

  const setFilter = <K extends keyof EventFilters>(key: K, value: EventFilters[K]) => {
    setFilters((current) => ({ ...current, [key]: value }));
    setOffset(0);
  };

  const handleClear = () => {
    setFilters(NO_FILTERS);
    setOffset(0);
  };

  const total = page?.total ?? 0;
  const shown = page?.events.length ?? 0;
  // The rows on screen may still be the last page's while the next one loads.
  const shownOffset = page?.offset ?? offset;
  const first = shown === 0 ? 0 : shownOffset + 1;
  const last = shownOffset + shown;

  return (
    <SecuritySection
      section="events"
      actions={<ExportButtons exports={EXPORTS} url={securityExportUrl} />}
    >
      <Box
        component="fieldset"
        m={0}
        p={0}
        mb="md"
        style={{ border: 0, minWidth: 0 }}
        aria-label="Filter events"
      >
        <SimpleGrid type="container" cols={FILTER_COLUMNS} spacing="sm">
          <NativeSelect
            label={SECURITY_TEXTS.eventTypeLabel}
            value={filters.eventType}
            onChange={(event) => setFilter('eventType', event.currentTarget.value)}
            data={[
              { value: '', label: SECURITY_TEXTS.allEventTypes },
              ...SECURITY_EVENT_TYPES.map((type) => ({
                value: type,
                label: formatEventType(type),
              })),
            ]}
          />
          <NativeSelect
            label={SECURITY_TEXTS.severityLabel}
            value={filters.severity}
            onChange={(event) => setFilter('severity', event.currentTarget.value as Severity | '')}
            data={[
              { value: '', label: SECURITY_TEXTS.allSeverities },
              ...SEVERITIES.map((severity) => ({
                value: severity,
                label: SEVERITY_LOOK[severity].label,
              })),
            ]}
          />
          <TextInput
            type="date"
            label={SECURITY_TEXTS.fromLabel}
            value={filters.from}
            max={filters.to || undefined}
            onChange={(event) => setFilter('from', event.currentTarget.value)}
          />
          <TextInput
            type="date"
            label={SECURITY_TEXTS.toLabel}
            value={filters.to}
            min={filters.from || undefined}
            onChange={(event) => setFilter('to', event.currentTarget.value)}
            error={isInverted(filters) ? SECURITY_TEXTS.dateRangeInverted : undefined}
          />
        </SimpleGrid>
        {filtered ? (
          <Group justify="flex-end" mt="xs">
            <Button
              size="xs"
              variant="subtle"
              leftSection={<IconFilterOff size={14} />}
              onClick={handleClear}
            >
              {SECURITY_TEXTS.clearFilters}
            </Button>
          </Group>
        ) : null}
      </Box>

      <QueryStates
        query={eventsQuery}
        loadingLabel="Loading security events"
        errorTitle={SECURITY_MESSAGES.loadEventsFailed}
        errorTestId="events-error"
      />
      {page && page.events.length === 0 ? (
        <EmptyText testId="events-empty">
          {filtered ? SECURITY_TEXTS.noMatchingEvents : SECURITY_TEXTS.noEvents}
        </EmptyText>
      ) : null}
      {page && page.events.length > 0 ? (
        <Box
          aria-busy={eventsQuery.isPlaceholderData}
          style={{ opacity: eventsQuery.isPlaceholderData ? 0.6 : 1, transition: 'opacity 150ms' }}
        >
          <ResponsiveList
            label={SECURITY_TEXTS.eventsTitle}
            items={page.events}
            itemKey={(event) => event.id}
            columns={COLUMNS}
            itemTestId="event-row"
            itemLabel={(event) => `${formatEventType(event.eventType)}, ${event.severity}`}
            minWidth={720}
          />
        </Box>
      ) : null}
      {page && total > 0 ? (
        <Group justify="space-between" gap="sm" mt="sm">
          <Text size="sm" c="dimmed" data-testid="events-range" aria-live="polite">
            {SECURITY_TEXTS.pageRange(first, last, total)}
          </Text>
          <Group gap="xs">
            <Button
              size="xs"
              variant="default"
              leftSection={<IconChevronLeft size={14} />}
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - pageSize))}
            >
              {SECURITY_TEXTS.previousPage}
            </Button>
            <Button
              size="xs"
              variant="default"
              rightSection={<IconChevronRight size={14} />}
              disabled={offset + pageSize >= total}
              onClick={() => setOffset(offset + pageSize)}
            >
              {SECURITY_TEXTS.nextPage}
            </Button>
          </Group>
        </Group>
      ) : null}
    </SecuritySection>
  );
}

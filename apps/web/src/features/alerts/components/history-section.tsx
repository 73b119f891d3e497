import { Alert, Box, Button, NativeSelect, Stack, Text } from '@mantine/core';
import type { AlertFiring } from '@perch/shared';
import { IconHistory } from '@tabler/icons-react';
import { useState } from 'react';
import { ExportButtons, type ExportChoice } from '@/components/export-buttons';
import { IconSection } from '@/components/icon-section';
import { EmptyText, QueryStates } from '@/components/section-states';
import { failureReason } from '@/lib/failure-text';
import { useNow } from '@/lib/use-now';
import { alertsExportUrl, type AlertsExportFormat } from '../api/export-url';
import { useAlertFiringsQuery } from '../api/get-alert-firings';
import { ALERT_TEXTS } from '../utils/alert-texts';
import { FiringItem } from './firing-item';

const EXPORTS: readonly ExportChoice<AlertsExportFormat>[] = [
  { format: 'json', label: ALERT_TEXTS.exportJson },
  { format: 'csv', label: ALERT_TEXTS.exportCsv },
];

export interface HistorySectionProps {
  /** The handles the filter offers: the followed ones and any a rule names. */
  handles: readonly string[];
}

/** Every page's firings in one list; a firing a newer page already holds shows once. */
function uniqueFirings(pages: readonly { firings: AlertFiring[] }[]): AlertFiring[] {
  const seen = new Set<number>();
  return pages
    .flatMap((page) => page.firings)
    .filter((firing) => {
      if (seen.has(firing.id)) return false;
      seen.add(firing.id);
      return true;
    });
}

/**
 * The alerts that fired, newest first, of every handle or one: more with 'Load more' (the
 * server's `next_before`), and the rules with every firing exported as JSON or CSV.
 */
export function HistorySection({ handles }: HistorySectionProps) {
  const [handle, setHandle] = useState('');
  const firingsQuery = useAlertFiringsQuery(handle || null);
  const now = useNow();
  const pages = firingsQuery.data?.pages;
  const firings = pages ? uniqueFirings(pages) : [];
  const refreshing = firingsQuery.isPlaceholderData;

  return (
    <IconSection
      title={ALERT_TEXTS.historyTitle}
      icon={IconHistory}
      color="grape"
      description={ALERT_TEXTS.historyDescription}
      testId="alert-history"
      actions={<ExportButtons exports={EXPORTS} url={alertsExportUrl} />}
    >
      <NativeSelect
        label={ALERT_TEXTS.handleFilterLabel}
        value={handle}
        onChange={(event) => setHandle(event.currentTarget.value)}
        data={[
          { value: '', label: ALERT_TEXTS.allHandles },
          ...handles.map((name) => ({ value: name, label: `@${name}` })),
        ]}
        maw={{ base: '100%', xs: 260 }}
        mb="md"
      />

      <QueryStates
        query={firingsQuery}
        loadingLabel={ALERT_TEXTS.loadingHistory}
        errorTitle={ALERT_TEXTS.loadHistoryFailed}
        errorTestId="alert-history-error"
      />
      {pages && !refreshing && firings.length === 0 ? (
        <EmptyText testId="alert-history-empty">
          {handle ? ALERT_TEXTS.noFiringsOf(handle) : ALERT_TEXTS.noFirings}
        </EmptyText>
      ) : null}

      {firings.length > 0 ? (
        <Box
          aria-busy={refreshing}
          style={{ opacity: refreshing ? 0.6 : 1, transition: 'opacity 150ms' }}
        >
          <Stack
            component="ul"
            gap="xs"
            m={0}
            p={0}
            style={{ listStyle: 'none' }}
            aria-label={ALERT_TEXTS.historyTitle}
          >
            {firings.map((firing) => (
              <FiringItem key={firing.id} firing={firing} now={now} />
            ))}
          </Stack>
          {firingsQuery.isFetchNextPageError ? (
            <Alert
              color="red"
              variant="light"
              title={ALERT_TEXTS.loadMoreFailed}
              mt="xs"
              role="alert"
            >
              {failureReason(firingsQuery.error, ALERT_TEXTS.loadMoreFailed)}
            </Alert>
          ) : null}
          <Stack gap={6} align="center" mt="sm">
            <Text size="xs" c="dimmed" aria-live="polite">
              {ALERT_TEXTS.shown(firings.length)}
            </Text>
            {firingsQuery.hasNextPage ? (
              <Button
                variant="default"
                size="xs"
                loading={firingsQuery.isFetchingNextPage}
                disabled={refreshing}
                onClick={() => void firingsQuery.fetchNextPage()}
              >
                {firingsQuery.isFetchNextPageError ? ALERT_TEXTS.tryAgain : ALERT_TEXTS.loadMore}
              </Button>
            ) : null}
          </Stack>
        </Box>
      ) : null}
    </IconSection>
  );
}

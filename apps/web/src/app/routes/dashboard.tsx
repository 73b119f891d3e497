import { Stack, Text } from '@mantine/core';
import { lazy } from 'react';
import { PageHeader } from '@/components/page-header';
import { DemoDataNotice } from '@/features/handles/components/demo-data-notice';
import { HandlePanel } from '@/features/handles/components/handle-panel';
import { useSettingsQuery } from '@/features/settings/api/get-settings';
import { useSelectedHandle } from '../hooks/use-selected-handle';
import { LazySection } from '../lazy/lazy-section';

// The analytics and the charts library load on demand, after the page shell: the handle list
// shows without waiting for them.
const DashboardAnalytics = lazy(() =>
  import('./dashboard-analytics').then((module) => ({ default: module.DashboardAnalytics })),
);

/** / (and /dashboard): the selected handle's analytics above the handle-management panel. */
export function DashboardRoute() {
  const { selectedHandle, selectHandle } = useSelectedHandle();
  // The switches say why a channel that is on cannot deliver (no X account, no channel...).
  const { data: settings } = useSettingsQuery();
  return (
    <>
      <PageHeader
        title="Dashboard"
        description={
          selectedHandle ? (
            <>
              Analytics for{' '}
              <Text span fw={600} c="var(--mantine-color-text)">
                @{selectedHandle}
              </Text>
            </>
          ) : (
            'Add the X handles you want to monitor; their tweets are collected in the background.'
          )
        }
      />
      <DemoDataNotice />
      <Stack gap="xl">
        {/* A failed chunk (e.g. after an update) leaves the handle panel below working. */}
        <LazySection
          loadingLabel="Loading dashboard..."
          errorTitle="The analytics could not be loaded."
        >
          <DashboardAnalytics selectedHandle={selectedHandle} onSelect={selectHandle} />
        </LazySection>
        {/* The analytics view announces the selected handle's completion; the panel the rest. */}
        <HandlePanel
          selectedHandle={selectedHandle}
          onSelect={selectHandle}
          announceSelectedCompletion={false}
          forwarding={settings}
        />
      </Stack>
    </>
  );
}

export { DashboardRoute as Component };

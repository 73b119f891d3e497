import { Card, EmptyState, Grid, Text } from '@mantine/core';
import { IconChartLine } from '@tabler/icons-react';
import { PageHeader } from '@/components/page-header';
import { DemoDataNotice } from '@/features/handles/components/demo-data-notice';
import { HandlePanel } from '@/features/handles/components/handle-panel';
import { useSelectedHandle } from '../hooks/use-selected-handle';

/** Where the selected handle's analytics will go; honest about what is not built yet. */
function AnalyticsPlaceholder({ handle }: { handle: string | null }) {
  return (
    <Card withBorder radius="lg" p="xl" h="100%" data-testid="analytics-placeholder">
      {handle ? (
        <EmptyState
          icon={<IconChartLine size={28} />}
          variant="light"
          title={`Analytics for @${handle} arrive with the analytics feature`}
          description="Engagement, posting patterns, hashtags, languages, velocity and growth for a week or a month will show here. Until then, the panel shows the backfill progress and the recent tweets."
        />
      ) : (
        <EmptyState
          icon={<IconChartLine size={28} />}
          variant="light"
          title="No handle selected"
          description="Add a handle, or pick one from the list, to follow its collection here."
        />
      )}
    </Card>
  );
}

/** / (and /dashboard): the handle-management panel next to the selected handle's analytics. */
export function DashboardRoute() {
  const { selectedHandle, selectHandle } = useSelectedHandle();
  return (
    <>
      <PageHeader
        title="Dashboard"
        description={
          selectedHandle ? (
            <>
              Showing{' '}
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
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 5 }}>
          <HandlePanel selectedHandle={selectedHandle} onSelect={selectHandle} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <AnalyticsPlaceholder handle={selectedHandle} />
        </Grid.Col>
      </Grid>
    </>
  );
}

export { DashboardRoute as Component };

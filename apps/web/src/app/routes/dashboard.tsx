import { Card, EmptyState, SimpleGrid, Text, ThemeIcon } from '@mantine/core';
import { IconChartLine, IconClockHour4, IconSend } from '@tabler/icons-react';
import { PageHeader } from '@/components/page-header';

const UPCOMING = [
  {
    icon: IconClockHour4,
    title: 'Backfill with progress',
    text: 'Each handle you add is backfilled over 7 or 15 days, with a live progress bar.',
  },
  {
    icon: IconChartLine,
    title: 'Analytics per handle',
    text: 'Engagement, posting patterns, hashtags, languages, velocity and growth for a week or a month.',
  },
  {
    icon: IconSend,
    title: 'Forwarding',
    text: 'New tweets sent to your Telegram chat or Discord DMs, switched on per handle.',
  },
];

/** / (and /dashboard): the analytics dashboard, filled by the collection work. */
export function DashboardRoute() {
  return (
    <>
      <PageHeader
        title="Dashboard"
        description="Analytics for the X handles you monitor will appear here."
      />
      <Card withBorder radius="lg" p="xl" mb="lg">
        <EmptyState
          icon={<IconChartLine size={28} />}
          variant="light"
          title="No handles to analyse yet"
          description="Adding handles arrives with the collection feature. Once a handle is added, pick it here to see its tweets and analytics for the last week or month."
        />
      </Card>
      <SimpleGrid cols={{ base: 1, md: 3 }} spacing="md">
        {UPCOMING.map((item) => (
          <Card key={item.title} withBorder radius="lg" p="lg">
            <ThemeIcon variant="light" size="lg" radius="md" mb="sm" aria-hidden>
              <item.icon size={20} />
            </ThemeIcon>
            <Text fw={600} mb={4}>
              {item.title}
            </Text>
            <Text size="sm" c="dimmed">
              {item.text}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
    </>
  );
}

export { DashboardRoute as Component };

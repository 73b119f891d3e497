import { Badge, Card, Group, SimpleGrid, Text, ThemeIcon } from '@mantine/core';
import { IconBrandDiscord, IconBrandTelegram } from '@tabler/icons-react';
import { PageHeader } from '@/components/page-header';

const INTEGRATIONS = [
  {
    name: 'Telegram',
    icon: IconBrandTelegram,
    color: 'blue',
    text: 'Connect your numeric Telegram chat ID to receive new tweets from your handles, and send a test message.',
  },
  {
    name: 'Discord',
    icon: IconBrandDiscord,
    color: 'indigo',
    text: 'Connect your Discord user ID to receive new tweets as direct messages, and send a test message.',
  },
];

/** /settings: notification integrations, filled by the notifications work. */
export function SettingsRoute() {
  return (
    <>
      <PageHeader
        title="Settings"
        description="Your Telegram and Discord connections will be managed here."
      />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        {INTEGRATIONS.map((integration) => (
          <Card key={integration.name} withBorder radius="lg" p="lg">
            <Group justify="space-between" mb="sm" wrap="nowrap">
              <Group gap="sm" wrap="nowrap">
                <ThemeIcon variant="light" color={integration.color} size="lg" aria-hidden>
                  <integration.icon size={20} />
                </ThemeIcon>
                <Text fw={600}>{integration.name}</Text>
              </Group>
              <Badge variant="outline" color="gray">
                Not available yet
              </Badge>
            </Group>
            <Text size="sm" c="dimmed">
              {integration.text}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
    </>
  );
}

export { SettingsRoute as Component };

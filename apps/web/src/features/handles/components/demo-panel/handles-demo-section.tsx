import { Button, Card, Center, Group, Loader, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconEye, IconEyeOff, IconFlask } from '@tabler/icons-react';
import { lazy, Suspense, useId, useState } from 'react';
import { DEMO_TEXTS } from '../../utils/demo-handle';

// Only shown after a click: the panel and its polling load on demand.
const DemoPanel = lazy(() =>
  import('./demo-panel').then((module) => ({ default: module.DemoPanel })),
);

/** The Admin page's handles demo, hidden until 'Show TanStack Query Demo' is clicked. */
export function HandlesDemoSection() {
  const [open, setOpen] = useState(false);
  const titleId = useId();
  return (
    <Card
      component="section"
      withBorder
      radius="lg"
      p={{ base: 'md', sm: 'lg' }}
      aria-labelledby={titleId}
      data-testid="handles-demo"
    >
      <Group justify="space-between" align="flex-start" gap="sm">
        <Group gap="sm" wrap="nowrap" miw={0} style={{ flex: '1 1 16rem' }}>
          <ThemeIcon variant="light" color="grape" size="lg" radius="md" aria-hidden>
            <IconFlask size={20} />
          </ThemeIcon>
          <Stack gap={0} miw={0}>
            <Title order={3} fz="md" fw={600} id={titleId}>
              Handles demo
            </Title>
            <Text size="xs" c="dimmed">
              Your own handles, live through the handles API with smart polling.
            </Text>
          </Stack>
        </Group>
        <Button
          variant={open ? 'default' : 'light'}
          leftSection={open ? <IconEyeOff size={16} /> : <IconEye size={16} />}
          onClick={() => setOpen((current) => !current)}
          aria-expanded={open}
        >
          {open ? DEMO_TEXTS.hide : DEMO_TEXTS.show}
        </Button>
      </Group>
      {open ? (
        <Suspense
          fallback={
            <Center py="lg">
              <Loader size="sm" aria-label="Loading demo" />
            </Center>
          }
        >
          <DemoPanel />
        </Suspense>
      ) : null}
    </Card>
  );
}

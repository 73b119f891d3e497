import { Button, Center, Group, Loader } from '@mantine/core';
import { IconEye, IconEyeOff, IconFlask } from '@tabler/icons-react';
import { lazy, Suspense, useId, useState } from 'react';
import { IconHeading, SectionFrame } from '@/components/section-frame';
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
    <SectionFrame titleId={titleId} testId="handles-demo">
      <Group justify="space-between" align="flex-start" gap="sm">
        <IconHeading
          id={titleId}
          title="Handles demo"
          icon={IconFlask}
          color="grape"
          description="Your own handles, live through the handles API with smart polling."
          grow
        />
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
    </SectionFrame>
  );
}

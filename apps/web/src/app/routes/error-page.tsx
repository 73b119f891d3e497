import { Button, Center, Code, Group, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconBug } from '@tabler/icons-react';
import { Link, isRouteErrorResponse, useRouteError } from 'react-router';

export const ERROR_PAGE_TITLE = 'Unexpected Application Error!';

function isChunkLoadError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'ChunkLoadError' ||
    /dynamically imported module|Importing a module script failed|error loading dynamically/i.test(
      error.message,
    )
  );
}

function describe(error: unknown): string {
  if (isRouteErrorResponse(error)) return `${error.status} ${error.statusText}`.trim();
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return 'Unknown error';
}

/** The router's fallback when a route throws. */
export function RouteErrorPage() {
  const error = useRouteError();
  const chunkFailed = isChunkLoadError(error);
  return (
    <Center mih="100dvh" px="md">
      <Stack align="center" gap="md" maw={560} ta="center">
        <ThemeIcon size={64} radius="xl" color="red" variant="light" aria-hidden>
          <IconBug size={34} />
        </ThemeIcon>
        <Title order={1}>{ERROR_PAGE_TITLE}</Title>
        {chunkFailed ? (
          <Text c="dimmed">
            A part of the app could not be loaded, perhaps because a new version was installed.
            Reloading the page usually fixes it.
          </Text>
        ) : null}
        <Code block w="100%" ta="left">
          {describe(error)}
        </Code>
        <Group>
          <Button onClick={() => window.location.reload()}>Reload page</Button>
          <Button component={Link} to="/" variant="default" reloadDocument>
            Go back home
          </Button>
        </Group>
      </Stack>
    </Center>
  );
}

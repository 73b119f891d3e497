import { Button, Center, Code, Group, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconBug } from '@tabler/icons-react';
import { Link, isRouteErrorResponse, useRouteError } from 'react-router';
import { CHUNK_ERROR_TEXT, RELOAD_TEXT, isChunkLoadError } from '../lazy/chunk-errors';

export const ERROR_PAGE_TITLE = 'Unexpected Application Error!';

function describe(error: unknown): string {
  if (isRouteErrorResponse(error)) return `${error.status} ${error.statusText}`.trim();
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return 'Unknown error';
}

export interface RouteErrorPageProps {
  /**
   * Inside the signed-in shell (a page failed, or its chunk did not load): the header and menu
   * stay, so the page takes the main area only, not the whole viewport.
   */
  inShell?: boolean;
}

/** The router's fallback when a route throws, or its code could not be loaded. */
export function RouteErrorPage({ inShell = false }: RouteErrorPageProps) {
  const error = useRouteError();
  const chunkFailed = isChunkLoadError(error);
  return (
    <Center mih={inShell ? 360 : '100dvh'} px="md" data-testid="route-error">
      <Stack align="center" gap="md" maw={560} ta="center">
        <ThemeIcon size={64} radius="xl" color="red" variant="light" aria-hidden>
          <IconBug size={34} />
        </ThemeIcon>
        <Title order={1}>{ERROR_PAGE_TITLE}</Title>
        {chunkFailed ? <Text c="dimmed">{CHUNK_ERROR_TEXT}</Text> : null}
        <Code block w="100%" ta="left">
          {describe(error)}
        </Code>
        <Group>
          <Button onClick={() => window.location.reload()}>{RELOAD_TEXT}</Button>
          <Button component={Link} to="/" variant="default" reloadDocument>
            Go back home
          </Button>
        </Group>
      </Stack>
    </Center>
  );
}

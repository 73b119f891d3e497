import { Button, Center, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconMapSearch } from '@tabler/icons-react';
import { Link } from 'react-router';

export const NOT_FOUND_TITLE = 'Page Not Found';
export const NOT_FOUND_TEXT = "The page you're looking for doesn't exist or has been moved.";

/** Any unknown path, signed in or not. */
export function NotFoundRoute() {
  return (
    <Center mih="100dvh" px="md" className="perch-auth-backdrop">
      <Stack align="center" gap="md" maw={460} ta="center">
        <ThemeIcon size={64} radius="xl" variant="light" aria-hidden>
          <IconMapSearch size={34} />
        </ThemeIcon>
        <Title order={1}>{NOT_FOUND_TITLE}</Title>
        <Text c="dimmed">{NOT_FOUND_TEXT}</Text>
        <Button component={Link} to="/" size="md">
          Go back home
        </Button>
      </Stack>
    </Center>
  );
}

export { NotFoundRoute as Component };

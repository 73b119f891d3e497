import { Anchor, Box, Center, Container, Group, Paper, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { ReactNode } from 'react';
import { Brand } from './brand';
import { ColorSchemeToggle } from './color-scheme-toggle';

export interface AuthLayoutProps {
  /** Card heading, e.g. 'Sign in'. */
  title: string;
  children: ReactNode;
  /** What stands under the card, above the FAQ and Home links. */
  footer?: ReactNode;
}

/** The centered card of the sign-in and registration pages. */
export function AuthLayout({ title, children, footer }: AuthLayoutProps) {
  return (
    <Box mih="100dvh" className="perch-auth-backdrop">
      <Group justify="flex-end" p="md">
        <ColorSchemeToggle />
      </Group>
      <Center px="md" pb="xl">
        <Container size={440} w="100%" p={0}>
          <Stack align="center" gap={6} mb="lg">
            <Brand size="lg" />
            <Text c="dimmed" size="sm" ta="center">
              Follow X accounts, backfill their tweets and see what works.
            </Text>
          </Stack>
          <Paper withBorder shadow="md" radius="lg" p={{ base: 'lg', xs: 'xl' }}>
            <Text component="h1" fw={700} fz="xl" mt={0} mb="md">
              {title}
            </Text>
            {children}
          </Paper>
          <Stack gap={6} mt="lg" align="center">
            {footer}
            <Group gap="md">
              <Anchor component={Link} to="/faq" size="sm" c="dimmed">
                FAQ
              </Anchor>
              <Anchor component={Link} to="/" size="sm" c="dimmed">
                Home
              </Anchor>
            </Group>
          </Stack>
        </Container>
      </Center>
    </Box>
  );
}

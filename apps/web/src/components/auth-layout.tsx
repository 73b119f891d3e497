import { Box, Center, Container, Group, Paper, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { Brand } from './brand';
import { ColorSchemeToggle } from './color-scheme-toggle';

export interface AuthLayoutProps {
  /** Card heading, e.g. 'Sign in'. */
  title: string;
  children: ReactNode;
  /** Links under the card. */
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
          {footer ? (
            <Stack gap={6} mt="lg" align="center">
              {footer}
            </Stack>
          ) : null}
        </Container>
      </Center>
    </Box>
  );
}

import { Anchor, Box, Button, Container, Group, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { Brand } from '@/components/brand';
import { ColorSchemeToggle } from '@/components/color-scheme-toggle';
import { FaqAccordion } from '@/features/faq/components/faq-accordion';
import { useAuth } from '@/features/auth/hooks/use-auth';
import { useSupportEmail } from '@/lib/public-config';

/** /faq: open to everyone, signed in or not. */
export function FaqRoute() {
  const { isAuthenticated } = useAuth();
  const supportEmail = useSupportEmail();
  return (
    <Box mih="100dvh" className="perch-auth-backdrop">
      <Container size="md" py="md">
        <Group justify="space-between" mb="xl" wrap="nowrap">
          <Anchor component={Link} to="/" underline="never" c="inherit" aria-label="Perch home">
            <Brand />
          </Anchor>
          <Group gap="sm" wrap="nowrap">
            <Button
              component={Link}
              to={isAuthenticated ? '/' : '/login'}
              variant="light"
              size="sm"
              px={{ base: 'xs', xs: 'md' }}
            >
              {isAuthenticated ? 'Dashboard' : 'Sign in'}
            </Button>
            <ColorSchemeToggle />
          </Group>
        </Group>
        <Stack gap={4} mb="lg">
          <Title order={1} fz={{ base: 28, sm: 36 }}>
            Frequently asked questions
          </Title>
          <Text c="dimmed">
            How Perch works, how to join, and how to connect Telegram and Discord.
          </Text>
        </Stack>
        <FaqAccordion supportEmail={supportEmail} />
        <Text size="sm" c="dimmed" mt="xl" ta="center">
          Still stuck? Write to <Anchor href={`mailto:${supportEmail}`}>{supportEmail}</Anchor>.
        </Text>
      </Container>
    </Box>
  );
}

export { FaqRoute as Component };

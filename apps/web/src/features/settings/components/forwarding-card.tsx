import { Anchor, Badge, Button, List, Stack, Text, ThemeIcon, VisuallyHidden } from '@mantine/core';
import { SETTINGS_MESSAGES, type Settings } from '@perch/shared';
import { IconCheck, IconPlayerPlay, IconRoute, IconX } from '@tabler/icons-react';
import { Link } from 'react-router';
import { SETTINGS_TEXTS } from '../utils/settings-messages';
import { SettingsCard } from './settings-card';

export interface ForwardingCardProps {
  settings: Settings;
  botRunning: boolean;
  apiConnected: boolean | undefined;
  /** A start (the button's) is running. */
  starting: boolean;
  onStart: () => void;
}

function Requirement({ met, children }: { met: boolean; children: string }) {
  return (
    <List.Item
      icon={
        <ThemeIcon
          size={20}
          radius="xl"
          variant={met ? 'light' : 'outline'}
          color={met ? 'green' : 'gray'}
          aria-hidden
        >
          {met ? <IconCheck size={13} /> : <IconX size={13} />}
        </ThemeIcon>
      }
    >
      <Text size="sm" c={met ? undefined : 'dimmed'}>
        {children}
        <VisuallyHidden>{met ? ' (done)' : ' (missing)'}</VisuallyHidden>
      </Text>
    </List.Item>
  );
}

/**
 * The user's forwarder ("bot"): whether new tweets are being sent and what it still needs. The
 * server starts it by itself once X and a channel are connected; the start button is there for
 * a forwarder that is off although it could run.
 */
export function ForwardingCard({
  settings,
  botRunning,
  apiConnected,
  starting,
  onStart,
}: ForwardingCardProps) {
  const channel = settings.telegramConnected || settings.discordConnected;
  const canStart = settings.twitterConnected && channel;
  let help: string = SETTINGS_TEXTS.forwardingActiveHelp;
  if (!botRunning) {
    if (!canStart) {
      help = `${SETTINGS_MESSAGES.botStartRequirements}. ${SETTINGS_TEXTS.forwardingStartsItself}`;
    } else help = 'Forwarding is ready to start.';
  }

  return (
    <SettingsCard
      title="Forwarding"
      icon={IconRoute}
      color="teal"
      description="New tweets on their way to you"
      status={
        <Badge
          color={botRunning ? 'green' : 'gray'}
          variant={botRunning ? 'light' : 'outline'}
          size="md"
          radius="sm"
          tt="capitalize"
          leftSection={
            <span
              aria-hidden
              style={{
                display: 'inline-block',
                width: 8,
                height: 8,
                borderRadius: 8,
                background: botRunning
                  ? 'var(--mantine-color-green-5)'
                  : 'var(--mantine-color-gray-6)',
              }}
            />
          }
          style={{ flexShrink: 0 }}
          data-testid="forwarding-status"
        >
          {/* Read as 'Forwarding active': the card's title shows the first word. */}
          <VisuallyHidden>Forwarding </VisuallyHidden>
          {SETTINGS_TEXTS.forwardingState(botRunning)}
        </Badge>
      }
      testId="forwarding-card"
    >
      <Stack gap="md">
        <List spacing={6} size="sm" center aria-label="What forwarding needs">
          <Requirement met={settings.twitterConnected}>X account connected</Requirement>
          <Requirement met={channel}>Telegram or Discord connected</Requirement>
          <Requirement met={apiConnected === true}>API reachable</Requirement>
        </List>
        <Text size="sm" c={botRunning ? undefined : 'dimmed'}>
          {help}
        </Text>
        {!botRunning && canStart ? (
          <Button
            variant="light"
            color="teal"
            leftSection={<IconPlayerPlay size={16} />}
            loading={starting}
            onClick={onStart}
            style={{ alignSelf: 'flex-start' }}
          >
            Start forwarding
          </Button>
        ) : null}
        <Text size="xs" c="dimmed">
          {SETTINGS_TEXTS.perHandleHint}{' '}
          <Anchor component={Link} to="/" size="xs">
            Dashboard
          </Anchor>
          .
        </Text>
      </Stack>
    </SettingsCard>
  );
}

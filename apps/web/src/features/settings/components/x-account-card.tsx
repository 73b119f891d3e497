import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import {
  SETTINGS_MESSAGES,
  X_OAUTH_NOT_CONFIGURED_MESSAGE,
  twitterUsernameSchema,
  type Settings,
} from '@perch/shared';
import { IconBrandX } from '@tabler/icons-react';
import { ApiError } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import { useConnectXAccountMutation } from '../api/connect-x-account';
import { useDisconnectXAccountMutation } from '../api/disconnect-x-account';
import { useXAccountStatusQuery } from '../api/get-x-account-status';
import { schemaCheck, useChannelId } from '../hooks/use-channel-id';
import { reportOnBanners, type SettingsNotifier } from '../hooks/use-settings-banners';
import { SETTINGS_TEXTS } from '../utils/settings-messages';
import { ChannelCard } from './channel-card';

export interface XAccountCardProps {
  settings: Settings;
  notify: SettingsNotifier;
}

const checkUsername = schemaCheck(twitterUsernameSchema, SETTINGS_MESSAGES.invalidTwitterUsername);

function formatConnectedAt(iso: string | null): string | null {
  return (iso && formatDate(iso)) || null;
}

/** Why connecting through X failed: the server's words (X_CLIENT_ID missing, say) when given. */
function connectErrorText(error: unknown): string {
  if (error instanceof ApiError && error.status === 400) {
    return error.serverMessage ?? X_OAUTH_NOT_CONFIGURED_MESSAGE;
  }
  return error instanceof ApiError
    ? (error.serverMessage ?? error.message)
    : SETTINGS_MESSAGES.botNetworkError;
}

/**
 * The user's X account: connected through X (OAuth, when this server offers it) or typed by
 * hand. Forwarding needs it together with a channel.
 */
export function XAccountCard({ settings, notify }: XAccountCardProps) {
  const statusQuery = useXAccountStatusQuery();
  const connectMutation = useConnectXAccountMutation();
  const disconnectMutation = useDisconnectXAccountMutation();
  const channel = useChannelId({
    field: 'twitter_username',
    stored: settings.twitter_username,
    check: checkUsername,
    texts: {
      saved: SETTINGS_MESSAGES.twitterSaved,
      saveFailed: SETTINGS_MESSAGES.invalidTwitterUsername,
      disconnected: SETTINGS_MESSAGES.twitterDisconnected,
      disconnectFailed: (error) => (error instanceof ApiError ? error.message : String(error)),
    },
    report: reportOnBanners(notify),
  });

  const oauthAvailable = statusQuery.data?.available ?? false;
  const connected = settings.twitterConnected && settings.twitter_username !== null;
  const viaOAuth = settings.twitterConnection === 'oauth';
  const since = viaOAuth ? formatConnectedAt(statusQuery.data?.connectedAt ?? null) : null;

  const handleDisconnect = () => {
    if (viaOAuth) disconnectMutation.mutate(undefined, channel.disconnected);
    else channel.disconnect();
  };

  const handleConnect = () => {
    connectMutation.mutate(undefined, {
      onError: (error) => notify.error(connectErrorText(error)),
    });
  };

  return (
    <ChannelCard
      title="X account"
      icon={IconBrandX}
      color="gray"
      description="Whose notifications these are"
      testId="x-account-card"
      state={connected ? 'connected' : 'not-connected'}
      channel={channel}
      connected={connected}
      showForm={connected ? channel.editor.editing : !oauthAvailable}
      field={{
        label: SETTINGS_TEXTS.xUsernameLabel,
        description: SETTINGS_TEXTS.xUsernameHelp,
        placeholder: 'Enter handle without @',
        leftSection: <Text size="sm">@</Text>,
      }}
      connectedView={
        <>
          <Stack gap={4}>
            <Group gap="xs" wrap="wrap">
              <Text fw={600} size="lg" data-testid="x-username">
                @{settings.twitter_username}
              </Text>
              <Badge variant="default" size="sm" radius="sm" tt="none">
                {viaOAuth ? 'Connected with X' : 'Entered by hand'}
              </Badge>
            </Group>
            <Text size="xs" c="dimmed">
              {since
                ? `Connected since ${since}`
                : viaOAuth
                  ? 'Read-only access granted on X.'
                  : 'Typed here: Perch needs no access to the account.'}
            </Text>
          </Stack>
          <Group gap="xs">
            {!viaOAuth ? (
              <Button variant="default" onClick={channel.change}>
                Change
              </Button>
            ) : null}
            <Button
              variant="subtle"
              color="red.5"
              onClick={handleDisconnect}
              loading={channel.saving || disconnectMutation.isPending}
            >
              Disconnect
            </Button>
          </Group>
        </>
      }
      connectOffer={
        <Stack gap={6}>
          <Button
            color="dark"
            variant="filled"
            leftSection={<IconBrandX size={16} />}
            onClick={handleConnect}
            loading={connectMutation.isPending || connectMutation.isSuccess}
            style={{ alignSelf: 'flex-start' }}
          >
            Connect X account
          </Button>
          <Text size="xs" c="dimmed">
            You approve read-only access on X, then come back here.
          </Text>
        </Stack>
      }
    />
  );
}

import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import {
  SETTINGS_MESSAGES,
  X_OAUTH_NOT_CONFIGURED_MESSAGE,
  twitterUsernameSchema,
  type Settings,
} from '@perch/shared';
import { IconBrandX } from '@tabler/icons-react';
import type { FormEvent } from 'react';
import { ApiError } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import { useConnectXAccountMutation } from '../api/connect-x-account';
import { useDisconnectXAccountMutation } from '../api/disconnect-x-account';
import { useXAccountStatusQuery } from '../api/get-x-account-status';
import { useSaveSettingsMutation } from '../api/save-settings';
import type { SettingsNotifier } from '../hooks/use-settings-banners';
import { SETTINGS_TEXTS, refusalOr } from '../utils/settings-messages';
import { ConnectionBadge } from './connection-badge';
import { IdForm, useIdEditor } from './id-form';
import { SettingsCard } from './settings-card';

export interface XAccountCardProps {
  settings: Settings;
  notify: SettingsNotifier;
}

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
  const saveMutation = useSaveSettingsMutation();
  const editor = useIdEditor();
  const { editing, input } = editor;

  const oauthAvailable = statusQuery.data?.available ?? false;
  const connected = settings.twitterConnected && settings.twitter_username !== null;
  const viaOAuth = settings.twitterConnection === 'oauth';
  const showForm = connected ? editing : !oauthAvailable;
  const since = viaOAuth ? formatConnectedAt(statusQuery.data?.connectedAt ?? null) : null;
  const busy = saveMutation.isPending || disconnectMutation.isPending;

  const handleSave = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = twitterUsernameSchema.safeParse(input);
    if (!parsed.success) {
      editor.fail(parsed.error.issues[0]?.message ?? SETTINGS_MESSAGES.invalidTwitterUsername);
      return;
    }
    saveMutation.mutate(
      { twitter_username: parsed.data },
      {
        onSuccess: () => {
          editor.done();
          notify.success(SETTINGS_MESSAGES.twitterSaved);
        },
        onError: (error) =>
          notify.error(refusalOr(error, SETTINGS_MESSAGES.invalidTwitterUsername)),
      },
    );
  };

  const handleDisconnect = () => {
    const onSuccess = () => {
      editor.done();
      notify.success(SETTINGS_MESSAGES.twitterDisconnected);
    };
    const onError = (error: unknown) =>
      notify.error(error instanceof ApiError ? error.message : String(error));
    if (viaOAuth) disconnectMutation.mutate(undefined, { onSuccess, onError });
    else saveMutation.mutate({ twitter_username: '' }, { onSuccess, onError });
  };

  const handleConnect = () => {
    connectMutation.mutate(undefined, {
      onError: (error) => notify.error(connectErrorText(error)),
    });
  };

  return (
    <SettingsCard
      title="X account"
      icon={IconBrandX}
      color="gray"
      description="Whose notifications these are"
      status={<ConnectionBadge state={connected ? 'connected' : 'not-connected'} />}
      testId="x-account-card"
    >
      <Stack gap="md">
        {connected && !editing ? (
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
                <Button
                  variant="default"
                  onClick={() => editor.start(settings.twitter_username ?? '')}
                >
                  Change
                </Button>
              ) : null}
              <Button variant="subtle" color="red.5" onClick={handleDisconnect} loading={busy}>
                Disconnect
              </Button>
            </Group>
          </>
        ) : null}

        {!connected && oauthAvailable ? (
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
        ) : null}

        {showForm ? (
          <IdForm
            editor={editor}
            onSubmit={handleSave}
            field={{
              label: SETTINGS_TEXTS.xUsernameLabel,
              description: SETTINGS_TEXTS.xUsernameHelp,
              placeholder: 'Enter handle without @',
              leftSection: <Text size="sm">@</Text>,
            }}
            saving={saveMutation.isPending}
            onCancel={connected ? editor.cancel : undefined}
          />
        ) : null}
      </Stack>
    </SettingsCard>
  );
}

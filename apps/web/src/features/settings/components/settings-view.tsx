import { Fieldset, SimpleGrid, Stack } from '@mantine/core';
import { SETTINGS_MESSAGES } from '@perch/shared';
import { useEffect } from 'react';
import { SectionError } from '@/components/section-states';
import { useBotStatusQuery } from '../api/get-bot-status';
import { useApiConnected } from '../api/get-health';
import { useRefreshSettings, useSettingsQuery } from '../api/get-settings';
import { useBotStart } from '../hooks/use-bot-start';
import { useConnectionState } from '../hooks/use-connection-state';
import { useSettingsBanners } from '../hooks/use-settings-banners';
import { useXConnectResult } from '../hooks/use-x-connect-result';
import { saveComponentStatus } from '../utils/component-status';
import { SETTINGS_TEXTS } from '../utils/settings-messages';
import { DeliveryLogCard } from './delivery-log-card';
import { DiscordCard } from './discord-card';
import { FeedsCard } from './feeds-card';
import { ForwardedPostsCard } from './forwarded-posts-card';
import { ForwardingCard } from './forwarding-card';
import { SettingsBanners } from './settings-banners';
import { SETTINGS_GRID_COLUMNS } from './settings-grid';
import { SettingsSkeleton } from './settings-skeleton';
import { TelegramCard } from './telegram-card';
import { WebhooksCard } from './webhooks-card';
import { XAccountCard } from './x-account-card';

/**
 * The Settings page body (docs/spec-notes.md, Settings screen): the page banners, the X account,
 * forwarding, Telegram and Discord cards, the webhooks, what is forwarded, the delivery log and
 * the feeds. Screen states: loading (skeletons), error (retry), loaded.
 *
 * While the server is not answering the cards stay on screen but read-only: nothing can be typed
 * into a form that cannot be saved. The app-wide connection banner above the page is the one
 * message that says so, and the cards come back by themselves with the server.
 */
export function SettingsView() {
  const settingsQuery = useSettingsQuery();
  const refreshSettings = useRefreshSettings();
  const apiConnected = useApiConnected();
  const readOnly = useConnectionState() !== 'ok';
  const botStatusQuery = useBotStatusQuery();
  const banners = useSettingsBanners();
  const { notify } = banners;
  useXConnectResult(notify);

  const settings = settingsQuery.data;
  const botRunning = botStatusQuery.data?.botRunning ?? settings?.botRunning ?? false;
  const botStart = useBotStart({
    onStarted: () => notify.success(SETTINGS_MESSAGES.botStarted),
    onFailed: notify.error,
  });

  useEffect(() => {
    if (!settings || apiConnected === undefined) return;
    saveComponentStatus({
      apiConnected,
      twitterConnected: settings.twitterConnected,
      telegramConnected: settings.telegramConnected,
      discordConnected: settings.discordConnected,
      botRunning,
    });
  }, [settings, apiConnected, botRunning]);

  return (
    <Stack gap="md">
      <SettingsBanners
        error={banners.error}
        success={banners.success}
        onDismissError={banners.dismissError}
        onDismissSuccess={banners.dismissSuccess}
      />

      {settingsQuery.isPending ? <SettingsSkeleton /> : null}

      {settingsQuery.isError && !settings ? (
        <SectionError
          title={SETTINGS_MESSAGES.fetchFailed}
          reason={settingsQuery.error.message}
          retrying={settingsQuery.isFetching}
          onRetry={() => void refreshSettings({ force: true })}
          testId="settings-load-error"
        />
      ) : null}

      {settings ? (
        // A disabled fieldset disables every input, switch and button inside it natively, and
        // leaves the values readable.
        <Fieldset
          variant="unstyled"
          m={0}
          disabled={readOnly}
          aria-label={readOnly ? SETTINGS_TEXTS.readOnlyLabel : undefined}
          data-testid="settings-cards"
        >
          <Stack gap="md">
            <SimpleGrid type="container" cols={SETTINGS_GRID_COLUMNS} spacing="md">
              <XAccountCard settings={settings} notify={notify} />
              <ForwardingCard
                settings={settings}
                botRunning={botRunning}
                apiConnected={apiConnected}
                starting={botStart.starting}
                onStart={botStart.startNow}
              />
              <TelegramCard settings={settings} notify={notify} />
              <DiscordCard settings={settings} />
            </SimpleGrid>
            <WebhooksCard />
            <ForwardedPostsCard />
            <DeliveryLogCard />
            <FeedsCard />
          </Stack>
        </Fieldset>
      ) : null}
    </Stack>
  );
}

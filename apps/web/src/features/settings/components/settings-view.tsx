import { Alert, SimpleGrid, Stack } from '@mantine/core';
import { SETTINGS_MESSAGES } from '@perch/shared';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useEffect } from 'react';
import { SectionError } from '@/components/section-states';
import { useBotStatusQuery } from '../api/get-bot-status';
import { useApiConnected } from '../api/get-health';
import { useRefreshSettings, useSettingsQuery } from '../api/get-settings';
import { useBotStart } from '../hooks/use-bot-start';
import { useSettingsBanners } from '../hooks/use-settings-banners';
import { useXConnectResult } from '../hooks/use-x-connect-result';
import { saveComponentStatus } from '../utils/component-status';
import { DeliveryLogCard } from './delivery-log-card';
import { DiscordCard } from './discord-card';
import { FeedsCard } from './feeds-card';
import { ForwardingCard } from './forwarding-card';
import { SettingsBanners } from './settings-banners';
import { SETTINGS_GRID_COLUMNS } from './settings-grid';
import { SettingsSkeleton } from './settings-skeleton';
import { TelegramCard } from './telegram-card';
import { XAccountCard } from './x-account-card';

/**
 * The Settings page body (docs/spec-notes.md, Settings screen): the API warning, the page banners,
 * the X account, forwarding, Telegram and Discord cards and the delivery log. Screen states:
 * loading (skeletons), error (retry), loaded.
 */
export function SettingsView() {
  const settingsQuery = useSettingsQuery();
  const refreshSettings = useRefreshSettings();
  const apiConnected = useApiConnected();
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
      {apiConnected === false ? (
        <Alert
          color="yellow"
          variant="light"
          icon={<IconAlertTriangle size={18} />}
          title={SETTINGS_MESSAGES.apiConnectionIssue}
          data-testid="api-warning"
        >
          The server is not answering right now. Changes may not be saved until it is back.
        </Alert>
      ) : null}
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
        <>
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
          <DeliveryLogCard />
          <FeedsCard />
        </>
      ) : null}
    </Stack>
  );
}

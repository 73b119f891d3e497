import { FORWARDING_MESSAGES, SETTINGS_MESSAGES } from '@perch/shared';
import { expect, test } from '@playwright/test';
import { registerSuperAdmin, registerUser } from './accounts';
import { handlePanel, handleRow } from './handle-rows';
import { servePerchWith } from './journey-servers';
import { recordShown } from './shown-texts';
import { startFakeTelegramServer, telegramEnv } from './notify-fakes';
import {
  addHandleByApi,
  apiCall,
  apiCallAnswering,
  saveSettings,
  waitForBackfill,
} from './perch-api';

const CHAT_ID = '424242777';

const { server } = servePerchWith(
  () => startFakeTelegramServer({ botUsername: 'perch_forwarding_bot' }),
  (fake) => ({ ...telegramEnv(fake), DEMO_PAGE_DELAY_MS: '0' }),
);

test('a switch that is on says why nothing would arrive, and forwarding starts on the server', async ({
  page,
}) => {
  await registerSuperAdmin(page, server, 'curie');
  await addHandleByApi(page, server.origin, 'nasa', 1);
  // Telegram connected, but no X account: the forwarder cannot run.
  await saveSettings(page, server.origin, { telegram_chat_id: CHAT_ID });
  // Collected before the page opens: its completion would otherwise be announced above the list
  // just as the switch is clicked, moving the switch from under the pointer.
  await waitForBackfill(page, server.origin, 'nasa');

  await page.reload();
  const row = handleRow(page, 'nasa');
  const telegramSwitch = row.getByRole('switch', { name: 'Telegram notifications for @nasa' });
  // The switch is on at once; the server's answer may come after the Discord click below.
  await telegramSwitch.click();
  await expect(telegramSwitch).toBeChecked();
  const reason = row.getByTestId('forwarding-reason');
  await expect(reason).toContainText(FORWARDING_MESSAGES.connectX);
  await expect(telegramSwitch).toHaveAccessibleDescription(/Connect your X account in Settings/);

  // Discord is not connected: the refusal shows beside the switch, not at the top of the panel.
  const discordSwitch = row.getByRole('switch', { name: 'Discord notifications for @nasa' });
  // Clicked while Telegram's answer may come in: it is said under the switches, so nothing
  // moves this switch from under the pointer (a line above the list once did).
  await discordSwitch.click();
  await expect(row.getByTestId('switch-refusal')).toContainText(
    SETTINGS_MESSAGES.connectDiscordFirst,
  );
  await expect(discordSwitch).not.toBeChecked();
  await expect(
    handlePanel(page)
      .getByTestId('handle-message')
      .filter({ hasText: SETTINGS_MESSAGES.connectDiscordFirst }),
  ).toHaveCount(0);

  // The note's link leads to Settings; saving the X account is the last thing missing.
  await reason.getByRole('link', { name: 'Open Settings' }).click();
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
  await expect(page.getByTestId('forwarding-status')).toHaveText('Forwarding inactive');
  const xCard = page.getByTestId('x-account-card');
  await xCard.getByLabel('Your X username').fill('marie_curie');
  await xCard.getByRole('button', { name: 'Save' }).click();
  // No five-second wait in the page: the server started forwarding with the save (the bound
  // stays under the page's 5 s poll, with room for a loaded machine).
  await expect(page.getByTestId('forwarding-status')).toHaveText('Forwarding active', {
    timeout: 4_500,
  });
  const status = await (await apiCall(page, server.origin, 'GET', '/bot/status')).json();
  expect(status.data).toMatchObject({ botRunning: true, status: 'running' });

  // Back on the dashboard, the switch has nothing left to explain.
  await page.getByRole('link', { name: 'Dashboard' }).first().click();
  await expect(telegramSwitch).toBeChecked();
  await expect(row.getByTestId('forwarding-reason')).toHaveCount(0);
});

test('forwarding starts with no page open: settings saved through the API alone', async ({
  page,
}) => {
  await registerUser(page, server.origin, 'meitner', await server.invite());
  await page.goto('about:blank');
  // The browser shows no Perch page while the connections are saved.
  await saveSettings(page, server.origin, { twitter_username: 'lise_m' });
  let status = await (await apiCall(page, server.origin, 'GET', '/bot/status')).json();
  expect(status.data).toMatchObject({ botRunning: false, canStart: false });
  await saveSettings(page, server.origin, { telegram_chat_id: '424242778' });
  status = await (await apiCall(page, server.origin, 'GET', '/bot/status')).json();
  expect(status.data).toMatchObject({ botRunning: true, canStart: true });
  // POST /bot/start still answers, and changes nothing.
  const start = await apiCallAnswering(200, page, server.origin, 'POST', '/bot/start');
  expect((await start.json()).message).toBe(SETTINGS_MESSAGES.botAlreadyRunning);
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the empty dashboard offers the sample handles; one tap adds one', async ({ page }) => {
    await registerUser(page, server.origin, 'franklin', await server.invite());
    const panel = handlePanel(page);
    const samples = panel.getByTestId('sample-handles');
    await expect(samples).toBeVisible();
    await expect(samples.getByRole('button', { name: /^Add @/ })).toHaveCount(8);
    // The sidebar (with its own samples) is folded away behind the burger.
    await expect(page.getByTestId('sidebar-handles')).not.toBeInViewport();
    // The message stays for 3 s: recorded as it appears (a loaded machine can answer a look
    // after it has gone).
    const added = await recordShown(page, '@github added successfully!');
    await samples.getByRole('button', { name: 'Add @github' }).click();
    await added();
    await expect(handleRow(page, 'github')).toBeVisible();
    await expect(samples).toHaveCount(0);
  });
});

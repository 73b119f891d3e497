import { SETTINGS_MESSAGES, TEST_MESSAGE_TEXT } from '@perch/shared';
import { expect, test } from '@playwright/test';
import { registerSuperAdmin, registerUser } from './accounts';
import { handleRow } from './handle-rows';
import { deliveryRow, followBusyDemoHandle, serveTelegramMonitoring } from './notify-fakes';
import { waitForBackfill } from './perch-api';

const CHAT_ID = '424242001';

const { server, fake: telegram } = serveTelegramMonitoring('perch_journey_bot');

test('connect Telegram, test it, switch a handle on: its next tweet reaches Telegram and the log', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await registerSuperAdmin(page, server, 'hopper');

  // A handle whose demo persona is about to post: its next minutes are known in advance; a
  // one-day backfill, so monitoring starts quickly.
  const busy = await followBusyDemoHandle(page, server.origin, 30_000, 240_000);

  await page.goto(`${server.origin}/dashboard/settings`);
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
  await expect(page.getByTestId('forwarding-status')).toHaveText('Forwarding inactive');
  await expect(page.getByTestId('delivery-log').getByTestId('deliveries-empty')).toBeVisible();

  // The X account, typed (this server has no X_CLIENT_ID).
  const xCard = page.getByTestId('x-account-card');
  await xCard.getByLabel('Your X username').fill('@grace_hopper');
  await xCard.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(SETTINGS_MESSAGES.twitterSaved)).toBeVisible();
  await expect(xCard.getByTestId('x-username')).toHaveText('@grace_hopper');

  // Telegram: a username is refused before anything is sent, then the numeric id is saved.
  const telegramCard = page.getByTestId('telegram-card');
  await expect(telegramCard.getByRole('button', { name: 'Connect with one click' })).toBeVisible();
  const chatIdInput = telegramCard.getByLabel('Telegram Chat ID');
  await chatIdInput.fill('@grace');
  await telegramCard.getByRole('button', { name: 'Save' }).click();
  await expect(telegramCard.getByText(SETTINGS_MESSAGES.telegramChatIdNumeric)).toBeVisible();
  await chatIdInput.fill(CHAT_ID);
  await telegramCard.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(SETTINGS_MESSAGES.telegramSaved)).toBeVisible();
  await expect(telegramCard.getByText(CHAT_ID)).toBeVisible();
  await expect(telegramCard.getByTestId('connection-state')).toHaveText('Connected');

  // The test message reaches the fake Telegram.
  await telegramCard.getByRole('button', { name: 'Test' }).click();
  await expect(page.getByText(SETTINGS_MESSAGES.telegramTestSuccess)).toBeVisible();
  expect(telegram.messagesTo(CHAT_ID).map((message) => message.text)).toEqual([TEST_MESSAGE_TEXT]);

  // X and a channel connected: the server started forwarding with the save.
  await expect(page.getByTestId('forwarding-status')).toHaveText('Forwarding active', {
    timeout: 15_000,
  });

  // Switch Telegram on for the handle, on the dashboard's handle panel, once it is collected
  // (its completion is announced above the list, which would move the switch under the click).
  await waitForBackfill(page, server.origin, busy.handle);
  await page.getByRole('link', { name: 'Dashboard' }).first().click();
  const row = handleRow(page, busy.handle);
  const telegramSwitch = row.getByRole('switch', {
    name: `Telegram notifications for @${busy.handle}`,
  });
  await expect(telegramSwitch).not.toBeChecked();
  // The switch follows the saved state a moment after the click (click, then wait for it).
  await telegramSwitch.click();
  await expect(telegramSwitch).toBeChecked();
  await expect(
    page.getByText(SETTINGS_MESSAGES.toggled('telegram', true, busy.handle)),
  ).toBeVisible();
  // Discord is not connected: the server refuses, and the switch goes back.
  const discordSwitch = row.getByRole('switch', {
    name: `Discord notifications for @${busy.handle}`,
  });
  // (click, not check: the switch is back off before the click returns)
  await discordSwitch.click();
  await expect(page.getByText(SETTINGS_MESSAGES.connectDiscordFirst)).toBeVisible();
  await expect(discordSwitch).not.toBeChecked();

  // The handle's next tweet is found by monitoring and delivered to the chat.
  await expect
    .poll(
      () =>
        telegram.messagesTo(CHAT_ID).filter((message) => message.text.includes(busy.handle)).length,
      { timeout: 150_000, intervals: [1_000] },
    )
    .toBeGreaterThan(0);

  // The delivery log on the Settings page shows it as sent.
  await page.getByRole('link', { name: 'Settings' }).first().click();
  const delivered = deliveryRow(page, busy.handle);
  await expect(delivered).toContainText('Sent', { timeout: 20_000 });
  await expect(delivered.getByRole('link', { name: 'Open tweet' })).toHaveAttribute(
    'href',
    new RegExp(`/${busy.handle}/status/\\d+`),
  );
});

test('connect Telegram with one click: press Start in Telegram and the page updates by itself', async ({
  page,
}) => {
  await registerUser(page, server.origin, 'lovelace', await server.invite());
  await page.goto(`${server.origin}/dashboard/settings`);
  const telegramCard = page.getByTestId('telegram-card');
  await telegramCard.getByRole('button', { name: 'Connect with one click' }).click();
  const open = telegramCard.getByRole('link', { name: 'Open Telegram' });
  await expect(open).toHaveAttribute('href', /^https:\/\/t\.me\/perch_journey_bot\?start=/);
  await expect(telegramCard.getByText(SETTINGS_MESSAGES.telegramLinkReady)).toBeVisible();
  await expect(
    telegramCard.getByText('Waiting for you to press Start in Telegram...'),
  ).toBeVisible();

  // The person opens the link and presses Start: the bot's update links the chat.
  const code = new URL((await open.getAttribute('href')) ?? '').searchParams.get('start') ?? '';
  telegram.userStarts('77001', code, { username: 'ada' });

  await expect(page.getByText(SETTINGS_MESSAGES.telegramLinkConnected('77001'))).toBeVisible({
    timeout: 20_000,
  });
  await expect(telegramCard.getByText('77001')).toBeVisible();
  await expect(telegramCard.getByRole('button', { name: 'Disconnect' })).toBeVisible();

  // Disconnect: back to the form.
  await telegramCard.getByRole('button', { name: 'Disconnect' }).click();
  await expect(page.getByText(SETTINGS_MESSAGES.telegramDisconnected)).toBeVisible();
  await expect(telegramCard.getByLabel('Telegram Chat ID')).toBeVisible();
  await expect(telegramCard.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
});

import {
  SETTINGS_MESSAGES,
  WEBHOOK_API_MESSAGES,
  type AlertFiringList,
  type AlertRuleList,
} from '@perch/shared';
import { expect, test } from '@playwright/test';
import { registerSuperAdmin } from './accounts';
import { pickWordHandle, pickWordTarget } from './demo-words';
import { handleRow } from './handle-rows';
import { servePerchWith } from './journey-servers';
import { startFakeTelegramServer, telegramEnv } from './notify-fakes';
import { addHandleByApi, apiData, waitForBackfill } from './perch-api';
import { payloadType, signedWith, startWebhookReceiver } from './webhook-receiver';

const CHAT_ID = '424242901';
const RULE_NAME = 'Word watch';
const WEBHOOK_NAME = 'Ops receiver';

/**
 * Demo handles that post about 2,000 times a day (demo-source.ts): the one whose next post with
 * a word of its own comes first once the rule can be made is followed.
 */
const CANDIDATES = Array.from({ length: 96 }, (_, index) => `bench_${index}`);

/**
 * How long a duplicate would take to show: a monitoring round (MONITOR_INTERVAL_SECONDS below)
 * stores the post again if it ever does, and the delivery worker evaluates and sends every
 * second. Counted from the alert's arrival, and mostly spent on the page checks that follow it.
 */
const DUPLICATE_WINDOW_MS = 7_000;

const { server, fake } = servePerchWith(
  async () => {
    const telegram = await startFakeTelegramServer({ botUsername: 'perch_alerts_bot' });
    const receiver = await startWebhookReceiver();
    return {
      telegram,
      receiver,
      async close() {
        await receiver.close();
        await telegram.close();
      },
    };
  },
  ({ telegram }) => ({
    ...telegramEnv(telegram),
    // New posts are found within seconds; the receiver listens on plain http:// on loopback.
    MONITOR_INTERVAL_SECONDS: '5',
    DEMO_PAGE_DELAY_MS: '0',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
  }),
);

test('a words alert fires once on the demo post that mentions the word: Telegram, a signed webhook, the history and the tweet browser', async ({
  page,
}) => {
  // About 45 s in a full journeys run; a fresh-clone run on a loaded machine passed 90 s once.
  test.setTimeout(150_000);
  const { telegram, receiver } = fake;
  await registerSuperAdmin(page, server, 'sagan');
  // The rule is made about 5 s from here (twice that on a busy machine), and stored within a
  // second: a post from 12 s on can be the one. If the rule comes later, a later post is chosen.
  const now = Date.now();
  const chosen = await pickWordHandle(CANDIDATES, {
    from: now,
    earliest: now + 20_000,
    latest: now + 60_000,
    quietMs: 60_000,
  });
  if (!chosen) throw new Error('no busy demo handle posts a word of its own in the next minute');
  const { handle } = chosen;
  await addHandleByApi(page, server.origin, handle, 1);

  // Settings: Telegram by its chat id.
  await page.getByRole('link', { name: 'Settings' }).first().click();
  const telegramCard = page.getByTestId('telegram-card');
  await telegramCard.getByLabel('Telegram Chat ID').fill(CHAT_ID);
  await telegramCard.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(SETTINGS_MESSAGES.telegramSaved)).toBeVisible();
  await expect(telegramCard.getByTestId('connection-state')).toHaveText('Connected');

  // A webhook to the receiver; its signing secret shows this once.
  const webhooksCard = page.getByTestId('webhooks-card');
  await webhooksCard.getByRole('button', { name: 'Add webhook' }).click();
  const webhookForm = page.getByRole('dialog', { name: 'Add webhook' });
  await webhookForm.getByLabel('Name').fill(WEBHOOK_NAME);
  await webhookForm.getByLabel('Address (URL)').fill(receiver.url);
  await webhookForm.getByRole('button', { name: 'Add webhook' }).click();
  const secretDialog = page.getByRole('dialog', { name: 'Copy the signing secret' });
  await expect(secretDialog.getByText(WEBHOOK_API_MESSAGES.created)).toBeVisible();
  const secret = (await secretDialog.getByTestId('webhook-secret').innerText()).trim();
  expect(secret).toMatch(/^whsec_\S+$/);
  await secretDialog.getByRole('button', { name: 'I have copied it' }).click();
  await expect(secretDialog).toBeHidden();
  await expect(webhooksCard.getByTestId('webhook-row')).toHaveCount(1);

  // Its Test request arrives signed with that secret: the receiver holds the right one.
  await webhooksCard.getByRole('button', { name: `Test ${WEBHOOK_NAME}` }).click();
  await expect(webhooksCard.getByTestId('webhook-test-result')).toContainText('Test passed');
  const testRequests = receiver.requests.filter((request) => payloadType(request) === 'test');
  expect(testRequests).toHaveLength(1);
  expect(signedWith(testRequests[0]!, secret)).toBe(true);
  expect(signedWith(testRequests[0]!, `${secret}x`)).toBe(false);

  // The handle is collected and monitored before the rule is made.
  await waitForBackfill(page, server.origin, handle, 30_000);

  // The Alerts page: a "Post mentions words" rule with a word only one coming post holds.
  await page.getByRole('link', { name: 'Alerts' }).first().click();
  const noRules = page.getByTestId('alerts-no-rules');
  await expect(noRules).toBeVisible();
  const watchFrom = Date.now();
  const target = await pickWordTarget(handle, {
    from: watchFrom,
    // Room for the dialog to be filled and the rule stored before the post is made, with a
    // margin for a loaded machine (a slow form only makes the journey wait longer).
    earliest: watchFrom + 8_000,
    latest: watchFrom + 60_000,
    quietMs: 60_000,
  });
  if (!target) throw new Error(`@${handle} has no post in the next minute with a word of its own`);

  await noRules.getByRole('button', { name: 'New alert' }).click();
  const ruleForm = page.getByRole('dialog', { name: 'New alert' });
  await ruleForm.getByLabel('Handle').selectOption(handle);
  await ruleForm.getByLabel('Name').fill(RULE_NAME);
  await ruleForm.getByLabel('Alert when').selectOption({ label: 'Post mentions words' });
  const include = ruleForm.getByLabel('Posts with any of');
  await include.fill(target.word);
  await include.press('Enter');
  await ruleForm.getByRole('button', { name: 'Create alert' }).click();
  await expect(ruleForm).toBeHidden();
  await expect(page.getByText(`Alert “${RULE_NAME}” created.`)).toBeVisible();
  const rules = page.getByRole('list', { name: `Alerts for @${handle}` });
  await expect(rules.getByRole('listitem')).toHaveCount(1);
  await expect(rules).toContainText(RULE_NAME);

  // The rule watches posts made after it: the chosen post must still be to come.
  const { rules: stored } = await apiData<AlertRuleList>(page, server.origin, 'GET', '/alerts');
  expect(stored.map((rule) => rule.name)).toEqual([RULE_NAME]);
  expect(
    Date.parse(stored[0]!.created_at),
    'the rule was stored after the post it was made for',
  ).toBeLessThanOrEqual(target.post.at);

  // The post comes, monitoring finds it, the rule fires: one message, one signed request.
  const alertMessages = () =>
    telegram.messagesTo(CHAT_ID).filter((message) => message.text.includes(RULE_NAME));
  const alertRequests = () =>
    receiver.requests.filter((request) => payloadType(request) === 'alert');
  await expect
    .poll(() => [alertMessages().length, alertRequests().length], {
      timeout: target.post.at - Date.now() + 25_000,
      intervals: [250],
    })
    .toEqual([1, 1]);
  const arrivedAt = Date.now();

  const summary = `A post by @${handle} mentions "${target.word}".`;
  const request = alertRequests()[0]!;
  expect(request.method).toBe('POST');
  expect(request.path).toBe(new URL(receiver.url).pathname);
  expect(request.contentType).toMatch(/^application\/json/);
  expect(signedWith(request, secret)).toBe(true);
  const payload = JSON.parse(request.body) as {
    handle: string;
    post: { id: string; url: string; text: string; createdAt: string };
    alert: { rule: string; summary: string };
  };
  expect(payload).toMatchObject({
    type: 'alert',
    handle,
    post: { text: target.post.text, createdAt: new Date(target.post.at).toISOString() },
    alert: { rule: RULE_NAME, summary },
  });
  const postUrl = payload.post.url;
  expect(postUrl).toMatch(new RegExp(`/${handle}/status/${payload.post.id}$`));

  const message = alertMessages()[0]!;
  expect(message.text).toContain(summary);
  expect(message.text).toContain(target.post.text);
  expect(message.raw).toContain(`href="${postUrl}"`);

  // The history shows the firing with the post's link (it loads when the page opens).
  await page.reload();
  const firings = page.getByTestId('alert-history').getByTestId('alert-firing');
  await expect(firings).toHaveCount(1);
  await expect(firings).toContainText(RULE_NAME);
  await expect(firings).toContainText(`@${handle}`);
  await expect(firings).toContainText(summary);
  await expect(
    firings.getByRole('link', { name: `View the post that fired ${RULE_NAME} on X` }),
  ).toHaveAttribute('href', postUrl);

  // The delivery log in Settings shows both deliveries as sent, with the rule.
  await page.getByRole('link', { name: 'Settings' }).first().click();
  const log = page.getByTestId('delivery-log');
  const alertLine = `Alert “${RULE_NAME}”: ${summary}`;
  await expect(log.getByTestId('delivery-alert')).toHaveText([alertLine, alertLine]);
  await expect(log.getByLabel(`Telegram message for @${handle}: Sent`)).toContainText(alertLine);
  const webhookRow = log.getByLabel(`Webhook message for @${handle}: Sent`);
  await expect(webhookRow).toContainText(alertLine);
  await expect(webhookRow).toContainText(`To ${WEBHOOK_NAME}`);

  // On the dashboard the handle's new posts go nowhere (its switches are off): the rule alone
  // sent the alert. The tweet browser marks the post with the alert's badge.
  await page.getByRole('link', { name: 'Dashboard' }).first().click();
  const row = handleRow(page, handle);
  await expect(
    row.getByRole('switch', { name: `Telegram notifications for @${handle}` }),
  ).not.toBeChecked();
  await row.getByRole('button', { name: `Recent tweets from @${handle}` }).click();
  const browser = page.getByRole('dialog', { name: `Recent tweets from @${handle}` });
  await browser.getByRole('textbox', { name: 'Search tweets' }).fill(target.word);
  const post = browser.getByTestId('recent-tweet').filter({
    has: page.locator(`a[href="${postUrl}"]`),
  });
  await expect(post).toHaveCount(1);
  await expect(post.getByTestId('tweet-alert-badge')).toHaveText(`Alert: ${RULE_NAME}`);

  // Still one of each once a duplicate would have shown (DUPLICATE_WINDOW_MS).
  const settleMs = arrivedAt + DUPLICATE_WINDOW_MS - Date.now();
  if (settleMs > 0) await page.waitForTimeout(settleMs);
  expect(alertMessages()).toHaveLength(1);
  expect(alertRequests()).toHaveLength(1);
  const history = await apiData<AlertFiringList>(page, server.origin, 'GET', '/alerts/firings');
  expect(history.firings.map((firing) => firing.tweet_url)).toEqual([postUrl]);
});

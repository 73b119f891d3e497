import {
  FORWARDING_MESSAGES,
  SETTINGS_MESSAGES,
  WEBHOOK_API_MESSAGES,
  type ForwardingSettings,
  type Handle,
  type HandleNotificationsRequest,
} from '@perch/shared';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { fail, ok, requestsTo, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { deferred, makeHandle, progressStubs } from '../test/handle-fixtures';
import { SUCCESS_MESSAGE_MS } from '../utils/handle-messages';
import { HandlePanel } from './handle-panel';

const person = () => userEvent.setup({ delay: null });

function renderPanel(
  handles: Handle[],
  put: StubHandler,
  extra: Record<string, StubHandler> = {},
  forwarding?: ForwardingSettings,
) {
  const fetchMock = stubFetch({
    'GET /api/v1/handles': () => ok({ handles }),
    ...progressStubs(handles),
    ...Object.fromEntries(
      handles.map((handle) => [`PUT /api/v1/handles/${handle.id}/notifications`, put]),
    ),
    ...extra,
  });
  renderRoute(
    '/',
    <HandlePanel selectedHandle={null} onSelect={() => undefined} forwarding={forwarding} />,
  );
  return fetchMock;
}

const rowOf = (name: string) => screen.getByRole('listitem', { name: `@${name}` });
const telegramSwitch = (name: string) =>
  screen.findByRole('switch', { name: `Telegram notifications for @${name}` });
const discordSwitch = (name: string) =>
  screen.findByRole('switch', { name: `Discord notifications for @${name}` });
const webhookSwitch = (name: string) =>
  screen.findByRole('switch', { name: `Webhook notifications for @${name}` });

/** The server's answer: the handle with the change applied. */
function answerWith(handle: Handle): StubHandler {
  return (request) => {
    const body = request.body as HandleNotificationsRequest;
    return ok({
      handle: {
        ...handle,
        telegram_enabled: body.telegramEnabled ?? handle.telegram_enabled,
        discord_enabled: body.discordEnabled ?? handle.discord_enabled,
        webhook_enabled: body.webhookEnabled ?? handle.webhook_enabled ?? false,
      },
    });
  };
}

describe('per-handle notification switches', () => {
  apiTestHooks();

  it('shows each handle’s Telegram, Discord and Webhooks state', async () => {
    const nasa = makeHandle({ id: 11, handle: 'nasa', telegram_enabled: true });
    const esa = makeHandle({ id: 22, handle: 'esa', webhook_enabled: true });
    renderPanel([nasa, esa], answerWith(nasa));
    expect(await telegramSwitch('nasa')).toBeChecked();
    expect(await discordSwitch('nasa')).not.toBeChecked();
    expect(await webhookSwitch('nasa')).not.toBeChecked();
    expect(await webhookSwitch('esa')).toBeChecked();
    expect(within(rowOf('esa')).getByText('Webhooks')).toBeVisible();
  });

  it('switches the webhooks of a handle and says so', async () => {
    const nasa = makeHandle({ id: 23, handle: 'nasa' });
    const fetchMock = renderPanel([nasa], answerWith(nasa));
    const user = person();
    const webhooks = await webhookSwitch('nasa');
    await user.click(webhooks);
    expect(webhooks).toBeChecked();
    expect(
      await screen.findByText(SETTINGS_MESSAGES.toggled('webhook', true, 'nasa')),
    ).toBeVisible();
    expect(requestsTo(fetchMock, 'PUT /api/v1/handles/23/notifications')[0]?.body).toEqual({
      webhookEnabled: true,
    });
    // The other switches of the row stay as they were.
    expect(await telegramSwitch('nasa')).not.toBeChecked();
    expect(await discordSwitch('nasa')).not.toBeChecked();
  });

  it('reverts the Webhooks switch beside it when the user has no webhook yet', async () => {
    const nasa = makeHandle({ id: 24, handle: 'nasa' });
    renderPanel([nasa], () => fail(400, WEBHOOK_API_MESSAGES.addWebhookFirst, 'VALIDATION_ERROR'));
    const webhooks = await webhookSwitch('nasa');
    await person().click(webhooks);
    const refusal = await within(rowOf('nasa')).findByTestId('switch-refusal');
    expect(refusal).toHaveTextContent(WEBHOOK_API_MESSAGES.addWebhookFirst);
    expect(WEBHOOK_API_MESSAGES.addWebhookFirst).toBe('Add a webhook in Settings first.');
    expect(within(refusal).getByRole('link', { name: 'Open Settings' })).toHaveAttribute(
      'href',
      '/settings',
    );
    expect(webhooks).not.toBeChecked();
    expect(screen.queryByTestId('handle-message')).toBeNull();
  });

  it("reverts the Webhooks switch with 'Failed to toggle webhook notification' when the server fails", async () => {
    const nasa = makeHandle({ id: 25, handle: 'nasa', webhook_enabled: true });
    renderPanel([nasa], () => fail(500, 'Internal error', 'INTERNAL'));
    const webhooks = await webhookSwitch('nasa');
    await person().click(webhooks);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Failed to toggle webhook notification',
    );
    expect(webhooks).toBeChecked();
  });

  it('switches on at once, before the server answers, and says so when it does', async () => {
    const nasa = makeHandle({ id: 12, handle: 'nasa' });
    const answer = deferred<Response>();
    const fetchMock = renderPanel([nasa], () => answer.promise);
    const toggle = await telegramSwitch('nasa');
    await person().click(toggle);
    expect(toggle).toBeChecked();
    expect(requestsTo(fetchMock, 'PUT /api/v1/handles/12/notifications')[0]?.body).toEqual({
      telegramEnabled: true,
    });
    answer.resolve(ok({ handle: { ...nasa, telegram_enabled: true } }));
    expect(
      await screen.findByText(SETTINGS_MESSAGES.toggled('telegram', true, 'nasa')),
    ).toBeVisible();
    expect(toggle).toBeChecked();
  });

  it('says what a switch did in its own row for 3 s, never above the list (which would move it)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const nasa = makeHandle({ id: 18, handle: 'nasa' });
      const esa = makeHandle({ id: 19, handle: 'esa' });
      renderPanel([nasa, esa], answerWith(nasa));
      const user = userEvent.setup({ delay: null, advanceTimers: vi.advanceTimersByTime });
      await user.click(await telegramSwitch('nasa'));
      const text = SETTINGS_MESSAGES.toggled('telegram', true, 'nasa');
      const said = await within(rowOf('nasa')).findByText(text);
      expect(said).toBeVisible();
      expect(within(rowOf('nasa')).getByTestId('switch-success')).toHaveAttribute('role', 'status');
      // Nothing above the list, and nothing in the other handle's row.
      expect(screen.queryByTestId('handle-message')).toBeNull();
      expect(within(rowOf('esa')).queryByTestId('switch-success')).toBeNull();
      await act(() => vi.advanceTimersByTimeAsync(SUCCESS_MESSAGE_MS - 100));
      expect(within(rowOf('nasa')).getByText(text)).toBeVisible();
      await act(() => vi.advanceTimersByTimeAsync(200));
      expect(within(rowOf('nasa')).queryByText(text)).toBeNull();
      expect(await telegramSwitch('nasa')).toBeChecked();
    } finally {
      vi.useRealTimers();
    }
  });

  it("reverts with the server's reason when the channel is not connected", async () => {
    const nasa = makeHandle({ id: 13, handle: 'nasa' });
    renderPanel([nasa], (request) =>
      (request.body as { telegramEnabled?: boolean }).telegramEnabled !== undefined
        ? fail(400, SETTINGS_MESSAGES.connectTelegramFirst, 'VALIDATION_ERROR')
        : fail(400, SETTINGS_MESSAGES.connectDiscordFirst, 'VALIDATION_ERROR'),
    );
    const user = person();
    const telegram = await telegramSwitch('nasa');
    await user.click(telegram);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      SETTINGS_MESSAGES.connectTelegramFirst,
    );
    expect(telegram).not.toBeChecked();

    const discord = await discordSwitch('nasa');
    await user.click(discord);
    await waitFor(() =>
      expect(screen.getByRole('alert')).toHaveTextContent(SETTINGS_MESSAGES.connectDiscordFirst),
    );
    expect(discord).not.toBeChecked();
  });

  it('shows a refusal beside the switch, not at the top of the panel', async () => {
    const nasa = makeHandle({ id: 16, handle: 'nasa' });
    const spacex = makeHandle({ id: 17, handle: 'spacex' });
    renderPanel([nasa, spacex], () =>
      fail(400, SETTINGS_MESSAGES.connectTelegramFirst, 'VALIDATION_ERROR'),
    );
    const user = person();
    await user.click(await telegramSwitch('spacex'));
    const refusal = await within(rowOf('spacex')).findByTestId('switch-refusal');
    expect(refusal).toHaveTextContent(SETTINGS_MESSAGES.connectTelegramFirst);
    expect(within(refusal).getByRole('link', { name: 'Open Settings' })).toHaveAttribute(
      'href',
      '/settings',
    );
    expect(within(rowOf('nasa')).queryByTestId('switch-refusal')).toBeNull();
    expect(screen.queryByTestId('handle-message')).toBeNull();
    await user.click(within(refusal).getByRole('button', { name: 'Dismiss' }));
    expect(within(rowOf('spacex')).queryByTestId('switch-refusal')).toBeNull();
  });

  it('keeps a refusal when another switch of the handle succeeds after it', async () => {
    const nasa = makeHandle({ id: 19, handle: 'nasa' });
    const telegramAnswer = deferred<Response>();
    renderPanel([nasa], (request) =>
      (request.body as { telegramEnabled?: boolean }).telegramEnabled !== undefined
        ? telegramAnswer.promise
        : fail(400, SETTINGS_MESSAGES.connectDiscordFirst, 'VALIDATION_ERROR'),
    );
    const user = person();
    await user.click(await telegramSwitch('nasa'));
    await user.click(await discordSwitch('nasa'));
    const refusal = await within(rowOf('nasa')).findByTestId('switch-refusal');
    expect(refusal).toHaveTextContent(SETTINGS_MESSAGES.connectDiscordFirst);
    // Telegram's answer comes after Discord's refusal: the refusal stays beside its switch.
    telegramAnswer.resolve(ok({ handle: { ...nasa, telegram_enabled: true } }));
    expect(
      await screen.findByText(SETTINGS_MESSAGES.toggled('telegram', true, 'nasa')),
    ).toBeVisible();
    expect(within(rowOf('nasa')).getByTestId('switch-refusal')).toHaveTextContent(
      SETTINGS_MESSAGES.connectDiscordFirst,
    );
  });

  describe('why a switched-on channel cannot deliver', () => {
    const connected: ForwardingSettings = {
      twitterConnected: true,
      telegramConnected: true,
      discordConnected: true,
      botRunning: true,
      telegram: { available: true, stoppedReason: null },
      discord: { available: true, stoppedReason: null },
    };

    it('asks for the X account under a switch that is on, with the way to Settings', async () => {
      const nasa = makeHandle({ id: 18, handle: 'nasa', telegram_enabled: true });
      renderPanel([nasa], answerWith(nasa), {}, { ...connected, twitterConnected: false });
      const telegram = await telegramSwitch('nasa');
      const reason = await within(rowOf('nasa')).findByTestId('forwarding-reason');
      expect(reason).toHaveTextContent(FORWARDING_MESSAGES.connectX);
      expect(FORWARDING_MESSAGES.connectX).toBe(
        'Connect your X account in Settings to receive notifications',
      );
      expect(within(reason).getByRole('link', { name: 'Open Settings' })).toHaveAttribute(
        'href',
        '/settings',
      );
      // The switch is described by its reason; the switch that is off says nothing.
      expect(telegram).toHaveAccessibleDescription(new RegExp(FORWARDING_MESSAGES.connectX));
      expect(await discordSwitch('nasa')).not.toHaveAccessibleDescription();
    });

    it('asks for the X account under a Webhooks switch that is on, as for the bots', async () => {
      const hooks = makeHandle({ id: 22, handle: 'hooks', webhook_enabled: true });
      renderPanel([hooks], answerWith(hooks), {}, { ...connected, twitterConnected: false });
      const webhooks = await webhookSwitch('hooks');
      const reason = await within(rowOf('hooks')).findByTestId('forwarding-reason');
      expect(reason).toHaveTextContent(FORWARDING_MESSAGES.connectX);
      expect(webhooks).toHaveAccessibleDescription(new RegExp(FORWARDING_MESSAGES.connectX));
      expect(await telegramSwitch('hooks')).not.toHaveAccessibleDescription();
    });

    it('says a shared reason once, and each channel its own', async () => {
      const both = makeHandle({
        id: 19,
        handle: 'both',
        telegram_enabled: true,
        discord_enabled: true,
      });
      renderPanel(
        [both],
        answerWith(both),
        {},
        {
          ...connected,
          twitterConnected: false,
        },
      );
      await telegramSwitch('both');
      expect(within(rowOf('both')).getAllByTestId('forwarding-reason')).toHaveLength(1);
    });

    it('names the channel that is not connected or stopped, and is silent when all is well', async () => {
      const nasa = makeHandle({
        id: 20,
        handle: 'nasa',
        telegram_enabled: true,
        discord_enabled: true,
      });
      renderPanel(
        [nasa],
        answerWith(nasa),
        {},
        {
          ...connected,
          discordConnected: false,
          telegram: { available: true, stoppedReason: 'The bot was blocked in Telegram.' },
        },
      );
      await telegramSwitch('nasa');
      const reasons = within(rowOf('nasa')).getAllByTestId('forwarding-reason');
      expect(reasons.map((reason) => reason.textContent)).toEqual([
        `${FORWARDING_MESSAGES.stopped('telegram', 'The bot was blocked in Telegram.')} Open Settings`,
        `${FORWARDING_MESSAGES.connectChannel('discord')} Open Settings`,
      ]);
    });

    it('says nothing when every switched-on channel delivers', async () => {
      const nasa = makeHandle({ id: 21, handle: 'nasa', telegram_enabled: true });
      renderPanel([nasa], answerWith(nasa), {}, connected);
      await telegramSwitch('nasa');
      expect(within(rowOf('nasa')).queryByTestId('forwarding-notes')).toBeNull();
    });
  });

  it("reverts with 'Failed to toggle … notification' when the server fails", async () => {
    const nasa = makeHandle({ id: 14, handle: 'nasa', discord_enabled: true });
    renderPanel([nasa], () => fail(500, 'Internal error', 'INTERNAL'));
    const discord = await discordSwitch('nasa');
    await person().click(discord);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      SETTINGS_MESSAGES.toggleFailed('discord'),
    );
    expect(SETTINGS_MESSAGES.toggleFailed('discord')).toBe('Failed to toggle discord notification');
    expect(discord).toBeChecked();
  });

  it('ignores a second click while the first is in flight for the same handle and channel', async () => {
    const nasa = makeHandle({ id: 15, handle: 'nasa' });
    const answers: ReturnType<typeof deferred<Response>>[] = [];
    const fetchMock = renderPanel([nasa], () => {
      const answer = deferred<Response>();
      answers.push(answer);
      return answer.promise;
    });
    const user = person();
    const telegram = await telegramSwitch('nasa');
    await user.click(telegram);
    await user.click(telegram);
    await user.click(telegram);
    expect(telegram).toBeChecked();
    // Another channel of the same handle is not held up.
    await user.click(await discordSwitch('nasa'));
    const puts = () => requestsTo(fetchMock, 'PUT /api/v1/handles/15/notifications');
    await waitFor(() => expect(puts()).toHaveLength(2));
    expect(puts().map((request) => request.body)).toEqual([
      { telegramEnabled: true },
      { discordEnabled: true },
    ]);

    answers[0]!.resolve(ok({ handle: { ...nasa, telegram_enabled: true } }));
    answers[1]!.resolve(ok({ handle: { ...nasa, telegram_enabled: true, discord_enabled: true } }));
    await screen.findByText(SETTINGS_MESSAGES.toggled('discord', true, 'nasa'));
    // Answered: the switch takes clicks again.
    await user.click(telegram);
    await waitFor(() => expect(puts()).toHaveLength(3));
    expect(puts()[2]?.body).toEqual({ telegramEnabled: false });
    expect(telegram).not.toBeChecked();
  });

  it('switches of different handles run side by side', async () => {
    const nasa = makeHandle({ id: 16, handle: 'nasa' });
    const esa = makeHandle({ id: 17, handle: 'esa' });
    const fetchMock = renderPanel([nasa, esa], (request) =>
      ok({
        handle: {
          ...(request.path.includes('/16/') ? nasa : esa),
          telegram_enabled: true,
        },
      }),
    );
    const user = person();
    await user.click(await telegramSwitch('nasa'));
    await user.click(await telegramSwitch('esa'));
    await waitFor(() => {
      expect(requestsTo(fetchMock, 'PUT /api/v1/handles/16/notifications')).toHaveLength(1);
      expect(requestsTo(fetchMock, 'PUT /api/v1/handles/17/notifications')).toHaveLength(1);
    });
    expect(await telegramSwitch('nasa')).toBeChecked();
    expect(await telegramSwitch('esa')).toBeChecked();
    const row = screen.getByRole('listitem', { name: '@esa' });
    expect(within(row).getByRole('switch', { name: /Discord/ })).not.toBeChecked();
  });
});

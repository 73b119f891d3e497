import { SETTINGS_MESSAGES } from '@perch/shared';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { deferred } from '../test/deferred';
import { makeSettings, settingsServer } from '../test/settings-fixtures';
import { findCard, openCard, renderSettings } from '../test/render-settings';

const person = () => userEvent.setup({ delay: null });

describe('Telegram card', () => {
  apiTestHooks();

  it('checks the Chat ID before sending anything', async () => {
    const { fetchMock, card } = await openCard('telegram-card');
    const user = person();
    const input = within(card).getByLabelText('Telegram Chat ID');

    await user.click(within(card).getByRole('button', { name: 'Save' }));
    expect(within(card).getByText(SETTINGS_MESSAGES.telegramChatIdRequired)).toBeVisible();
    await user.type(input, '@ada_lovelace');
    expect(within(card).queryByText(SETTINGS_MESSAGES.telegramChatIdRequired)).toBeNull();
    await user.click(within(card).getByRole('button', { name: 'Save' }));
    expect(within(card).getByText(SETTINGS_MESSAGES.telegramChatIdNumeric)).toBeVisible();
    await user.click(within(card).getByRole('button', { name: 'Test' }));
    expect(within(card).getByText(SETTINGS_MESSAGES.telegramChatIdNumeric)).toBeVisible();
    expect(input).toHaveAttribute('aria-invalid', 'true');

    expect(requestsTo(fetchMock, 'POST /api/v1/settings')).toHaveLength(0);
    expect(requestsTo(fetchMock, 'POST /api/v1/settings/telegram/test')).toHaveLength(0);
  });

  it('saves the id (@ and spaces removed), then shows it with Change, Test and Disconnect', async () => {
    const { fetchMock, card } = await openCard('telegram-card');
    // Not connected: the form has no Cancel.
    expect(within(card).queryByRole('button', { name: 'Cancel' })).toBeNull();
    const user = person();
    await user.type(within(card).getByLabelText('Telegram Chat ID'), ' @123456789 ');
    await user.click(within(card).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText(SETTINGS_MESSAGES.telegramSaved)).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/settings')[0]?.body).toEqual({
      telegram_chat_id: '123456789',
    });
    expect(within(card).getByText('123456789')).toBeVisible();
    expect(within(card).getByTestId('connection-state')).toHaveTextContent('Connected');
    for (const name of ['Change', 'Test', 'Disconnect']) {
      expect(within(card).getByRole('button', { name })).toBeVisible();
    }
    expect(within(card).queryByLabelText('Telegram Chat ID')).toBeNull();

    // Change opens the form with the id; Cancel (connected only) goes back unchanged.
    await user.click(within(card).getByRole('button', { name: 'Change' }));
    expect(within(card).getByLabelText('Telegram Chat ID')).toHaveValue('123456789');
    await user.click(within(card).getByRole('button', { name: 'Cancel' }));
    expect(within(card).getByText('123456789')).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/settings')).toHaveLength(1);
  });

  it("shows the server's refusal, or 'Failed to save Telegram settings.'", async () => {
    const server = settingsServer();
    let answer = () => fail(400, SETTINGS_MESSAGES.telegramChatIdNumeric, 'VALIDATION_ERROR');
    stubFetch({ ...server.handlers, 'POST /api/v1/settings': () => answer() });
    renderSettings();
    const card = await findCard('telegram-card');
    const user = person();
    await user.type(within(card).getByLabelText('Telegram Chat ID'), '42');
    await user.click(within(card).getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      SETTINGS_MESSAGES.telegramChatIdNumeric,
    );
    answer = () => fail(500, 'Internal error', 'INTERNAL');
    await user.click(within(card).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(screen.getByRole('alert')).toHaveTextContent(SETTINGS_MESSAGES.telegramSaveFailed),
    );
    // The red banner stays until dismissed.
    await user.click(within(screen.getByRole('alert')).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('disconnects with an empty chat id and goes back to the form', async () => {
    const server = settingsServer(
      makeSettings({ telegram_chat_id: '555', twitter_username: 'ada', botRunning: true }),
    );
    const { fetchMock, card } = await openCard('telegram-card', server);
    await person().click(within(card).getByRole('button', { name: 'Disconnect' }));
    expect(await screen.findByText(SETTINGS_MESSAGES.telegramDisconnected)).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/settings')[0]?.body).toEqual({
      telegram_chat_id: '',
    });
    expect(within(card).getByLabelText('Telegram Chat ID')).toHaveValue('');
    expect(within(card).queryByRole('button', { name: 'Cancel' })).toBeNull();
    expect(within(card).getByTestId('connection-state')).toHaveTextContent('Not connected');
  });

  it("says 'Failed to disconnect Telegram.' when the server fails", async () => {
    const server = settingsServer(makeSettings({ telegram_chat_id: '555' }));
    stubFetch({
      ...server.handlers,
      'POST /api/v1/settings': () => fail(503, 'Service unavailable', 'UNAVAILABLE'),
    });
    renderSettings();
    const card = await findCard('telegram-card');
    await person().click(within(card).getByRole('button', { name: 'Disconnect' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      SETTINGS_MESSAGES.telegramDisconnectFailed,
    );
    expect(within(card).getByText('555')).toBeVisible();
  });

  it('sends a test message to the saved chat; the success banner leaves after 5 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = settingsServer(makeSettings({ telegram_chat_id: '555' }));
    const fetchMock = stubFetch({
      ...server.handlers,
      'POST /api/v1/settings/telegram/test': () => ok({ status: 'ok', channel: 'telegram' }),
    });
    renderSettings();
    const card = await findCard('telegram-card');
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) });
    await user.click(within(card).getByRole('button', { name: 'Test' }));
    expect(await screen.findByText(SETTINGS_MESSAGES.telegramTestSuccess)).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/settings/telegram/test')[0]?.body).toEqual({
      chat_id: '555',
    });
    act(() => vi.advanceTimersByTime(4_800));
    expect(screen.getByText(SETTINGS_MESSAGES.telegramTestSuccess)).toBeVisible();
    act(() => vi.advanceTimersByTime(300));
    expect(screen.queryByText(SETTINGS_MESSAGES.telegramTestSuccess)).toBeNull();
  });

  it.each([
    [
      'chat not found',
      () => fail(400, SETTINGS_MESSAGES.telegramTestChatNotFound, 'TELEGRAM_CHAT_NOT_FOUND'),
      SETTINGS_MESSAGES.telegramTestChatNotFound,
    ],
    [
      'bot blocked',
      () => fail(400, SETTINGS_MESSAGES.telegramTestBlocked, 'TELEGRAM_BOT_BLOCKED'),
      SETTINGS_MESSAGES.telegramTestBlocked,
    ],
    [
      'an upstream failure',
      () =>
        fail(
          502,
          SETTINGS_MESSAGES.telegramTestError('Telegram is not reachable'),
          'TELEGRAM_TEST_FAILED',
        ),
      'Error testing Telegram connection: Telegram is not reachable',
    ],
    [
      'no answer at all',
      () => Promise.reject(new TypeError('Failed to fetch')),
      'Error testing Telegram connection: Network error',
    ],
  ])('a failed test (%s) shows the spec text', async (_name, answer, text) => {
    const server = settingsServer();
    stubFetch({ ...server.handlers, 'POST /api/v1/settings/telegram/test': answer });
    renderSettings();
    const card = await findCard('telegram-card');
    const user = person();
    await user.type(within(card).getByLabelText('Telegram Chat ID'), '-100200300');
    await user.click(within(card).getByRole('button', { name: 'Test' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
  });

  it('ignores a second test while the first is in flight', async () => {
    const server = settingsServer(makeSettings({ telegram_chat_id: '555' }));
    const answer = deferred<Response>();
    const fetchMock = stubFetch({
      ...server.handlers,
      'POST /api/v1/settings/telegram/test': () => answer.promise,
    });
    renderSettings();
    const card = await findCard('telegram-card');
    const test = within(card).getByRole('button', { name: 'Test' });
    const user = person();
    await user.click(test);
    await user.click(test);
    await user.dblClick(test);
    await waitFor(() =>
      expect(requestsTo(fetchMock, 'POST /api/v1/settings/telegram/test')).toHaveLength(1),
    );
    answer.resolve(ok({ status: 'ok', channel: 'telegram' }));
    expect(await screen.findByText(SETTINGS_MESSAGES.telegramTestSuccess)).toBeVisible();
    // Once answered, a new test goes out again.
    await user.click(within(card).getByRole('button', { name: 'Test' }));
    await waitFor(() =>
      expect(requestsTo(fetchMock, 'POST /api/v1/settings/telegram/test')).toHaveLength(2),
    );
  });

  it('connects with one click: the t.me link, then the page notices the linked chat', async () => {
    const server = settingsServer();
    const fetchMock = stubFetch({
      ...server.handlers,
      'POST /api/v1/settings/telegram/link': () =>
        ok({
          url: 'https://t.me/perch_test_bot?start=abc123',
          botUsername: 'perch_test_bot',
          expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
          instructions: SETTINGS_MESSAGES.telegramLinkReady,
        }),
    });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderSettings();
    const card = await findCard('telegram-card');
    expect(within(card).getByText(/press Start and this page updates by itself/)).toBeVisible();
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) });
    await user.click(within(card).getByRole('button', { name: 'Connect with one click' }));

    const open = await within(card).findByRole('link', { name: 'Open Telegram' });
    expect(open).toHaveAttribute('href', 'https://t.me/perch_test_bot?start=abc123');
    expect(open).toHaveAttribute('target', '_blank');
    expect(within(card).getByText(SETTINGS_MESSAGES.telegramLinkReady)).toBeVisible();
    expect(within(card).getByText('Waiting for you to press Start in Telegram...')).toBeVisible();

    // While waiting, the settings are fetched every 5 s, no more often.
    const before = requestsTo(fetchMock, 'GET /api/v1/settings').length;
    await act(() => vi.advanceTimersByTimeAsync(4_900));
    expect(requestsTo(fetchMock, 'GET /api/v1/settings')).toHaveLength(before);
    await act(() => vi.advanceTimersByTimeAsync(200));
    expect(requestsTo(fetchMock, 'GET /api/v1/settings')).toHaveLength(before + 1);

    // The person pressed Start: the bot linked the chat.
    server.set({ ...server.current, telegram_chat_id: '987654' });
    await act(() => vi.advanceTimersByTimeAsync(5_100));
    expect(
      await screen.findByText(SETTINGS_MESSAGES.telegramLinkConnected('987654')),
    ).toBeVisible();
    expect(within(card).getByText('987654')).toBeVisible();
    expect(within(card).queryByRole('link', { name: 'Open Telegram' })).toBeNull();
    const after = requestsTo(fetchMock, 'GET /api/v1/settings').length;
    await act(() => vi.advanceTimersByTimeAsync(20_000));
    expect(requestsTo(fetchMock, 'GET /api/v1/settings')).toHaveLength(after);
  });

  it('shows the operator hint when the server has no bot token', async () => {
    const server = settingsServer(
      makeSettings({
        telegram: {
          available: false,
          hint: SETTINGS_MESSAGES.telegramUnavailable,
          botUsername: null,
          linkAvailable: false,
        },
      }),
    );
    const { card } = await openCard('telegram-card', server);
    expect(within(card).getByText(SETTINGS_MESSAGES.telegramUnavailable)).toBeVisible();
    expect(within(card).getByTestId('connection-state')).toHaveTextContent('Unavailable');
    expect(within(card).queryByLabelText('Telegram Chat ID')).toBeNull();
    expect(within(card).queryByRole('button', { name: 'Connect with one click' })).toBeNull();
  });

  it('shows why delivery stopped, and how to resume', async () => {
    const server = settingsServer(
      makeSettings({
        telegram_chat_id: '555',
        telegram: { stoppedReason: SETTINGS_MESSAGES.telegramBlockedReason },
      }),
    );
    const { card } = await openCard('telegram-card', server);
    const stopped = within(card).getByTestId('stopped-reason');
    expect(stopped).toHaveTextContent('Delivery stopped');
    expect(stopped).toHaveTextContent(SETTINGS_MESSAGES.telegramBlockedReason);
    expect(stopped).toHaveTextContent(/resumes after a successful test/);
    expect(within(card).getByTestId('connection-state')).toHaveTextContent('Stopped');
  });
});

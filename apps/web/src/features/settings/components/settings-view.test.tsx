import {
  SETTINGS_MESSAGES,
  X_CONNECT_ERROR_MESSAGES,
  X_OAUTH_NOT_CONFIGURED_MESSAGE,
} from '@perch/shared';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { fail, jsonResponse, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { browserNavigation } from '../api/connect-x-account';
import { deferred } from '../test/deferred';
import { botStatusOf, makeDelivery, makeSettings, settingsServer } from '../test/settings-fixtures';
import { findCard, openCard, openDeliveryLog, renderSettings } from '../test/render-settings';
import { COMPONENT_STATUS_KEY } from '../utils/component-status';

const person = () => userEvent.setup({ delay: null });
const forwarding = () => screen.getByTestId('forwarding-status');

/** The X account status when sign-in through X is offered and no account is connected. */
const X_OAUTH_AVAILABLE_NOT_CONNECTED = {
  available: true,
  connected: false,
  username: null,
  connectedAt: null,
  method: null,
};

describe('Settings page', () => {
  apiTestHooks();

  it('shows skeletons while loading, then every card and an empty delivery log', async () => {
    const server = settingsServer();
    const settings = deferred<Response>();
    stubFetch({ ...server.handlers, 'GET /api/v1/settings': () => settings.promise });
    renderSettings();
    expect(screen.getByLabelText('Loading settings')).toHaveAttribute('aria-busy', 'true');
    settings.resolve(ok({ settings: server.current }));
    for (const card of ['x-account-card', 'forwarding-card', 'telegram-card', 'discord-card']) {
      expect(await findCard(card)).toBeVisible();
    }
    expect(screen.queryByLabelText('Loading settings')).toBeNull();
    expect(await screen.findByTestId('deliveries-empty')).toHaveTextContent(/No messages yet/);
    expect(forwarding()).toHaveTextContent('Forwarding inactive');
  });

  it("shows 'Failed to fetch settings' with a retry that fetches again", async () => {
    const server = settingsServer();
    let broken = true;
    const fetchMock = stubFetch({
      ...server.handlers,
      'GET /api/v1/settings': () =>
        broken ? fail(500, 'Database unavailable', 'INTERNAL') : ok({ settings: server.current }),
    });
    renderSettings();
    const error = await screen.findByTestId('settings-load-error');
    expect(error).toHaveTextContent(SETTINGS_MESSAGES.fetchFailed);
    expect(error).toHaveTextContent('Database unavailable');
    broken = false;
    await person().click(within(error).getByRole('button', { name: 'Retry' }));
    expect(await findCard('telegram-card')).toBeVisible();
    expect(requestsTo(fetchMock, 'GET /api/v1/settings')).toHaveLength(2);
  });

  it('turns the cards read-only when the health check fails, leaving the message to the app banner', async () => {
    const server = settingsServer();
    stubFetch({
      ...server.handlers,
      'GET /api/v1/health': () =>
        jsonResponse(503, { success: false, message: 'Database unreachable', code: 'DEGRADED' }),
    });
    renderSettings();
    const card = await findCard('forwarding-card');
    await waitFor(() =>
      expect(within(card).getByText(/API reachable/)).toHaveTextContent('(missing)'),
    );
    expect(screen.getByTestId('settings-cards')).toBeDisabled();
    expect(
      within(screen.getByTestId('telegram-card')).getByLabelText(/Telegram Chat ID/),
    ).toBeDisabled();
    expect(screen.queryByText(SETTINGS_MESSAGES.apiConnectionIssue)).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  describe('forwarding start', () => {
    const ready = () =>
      makeSettings({ twitter_username: 'ada', telegram_chat_id: '555', botRunning: false });

    /** Types a chat id on the Telegram card and saves it, as a person would. */
    async function saveTelegramChatId(chatId: string) {
      const user = person();
      const telegram = screen.getByTestId('telegram-card');
      await user.type(within(telegram).getByLabelText(/Telegram Chat ID/), chatId);
      await user.click(within(telegram).getByRole('button', { name: 'Save' }));
    }

    it('shows forwarding active once a save completes what it needs: the server started it', async () => {
      const server = settingsServer(makeSettings({ twitter_username: 'ada' }));
      const fetchMock = stubFetch(server.handlers);
      renderSettings();
      await findCard('forwarding-card');
      expect(forwarding()).toHaveTextContent('Forwarding inactive');
      expect(
        within(screen.getByTestId('forwarding-card')).getByText(/starts by itself on the server/),
      ).toBeVisible();
      await saveTelegramChatId('555');
      await waitFor(() => expect(forwarding()).toHaveTextContent('Forwarding active'));
      // The browser never starts it: no page has to stay open for forwarding to begin.
      expect(requestsTo(fetchMock, 'POST /api/v1/bot/start')).toHaveLength(0);
      expect(JSON.parse(localStorage.getItem(COMPONENT_STATUS_KEY) ?? '{}')).toMatchObject({
        status: { botRunning: true, apiConnected: true, telegramConnected: true },
      });
    });

    it('shows forwarding active after a save while the first status fetch is still on its way', async () => {
      const server = settingsServer(makeSettings({ twitter_username: 'ada' }));
      const firstStatus = deferred<Response>();
      let statusCalls = 0;
      const fetchMock = stubFetch({
        ...server.handlers,
        // The page's first status fetch is slow; the fetch after the save replaces it.
        'GET /api/v1/bot/status': (request) =>
          ++statusCalls === 1
            ? firstStatus.promise
            : server.handlers['GET /api/v1/bot/status']!(request),
      });
      renderSettings();
      await findCard('forwarding-card');
      await waitFor(() => expect(statusCalls).toBe(1));
      await saveTelegramChatId('555');
      await waitFor(() => expect(forwarding()).toHaveTextContent('Forwarding active'));
      expect(requestsTo(fetchMock, 'GET /api/v1/bot/status')).toHaveLength(2);
      // The slow answer, from before the save, changes nothing when it comes.
      firstStatus.resolve(ok(botStatusOf(makeSettings({ twitter_username: 'ada' }))));
      await act(() => Promise.resolve());
      expect(forwarding()).toHaveTextContent('Forwarding active');
    });

    it('never starts the bot from the browser by itself, even with everything connected', async () => {
      vi.useFakeTimers({ shouldAdvanceTime: true });
      const server = settingsServer(ready());
      const fetchMock = stubFetch(server.handlers);
      renderSettings();
      await findCard('forwarding-card');
      await act(() => vi.advanceTimersByTimeAsync(30_000));
      expect(requestsTo(fetchMock, 'POST /api/v1/bot/start')).toHaveLength(0);
      expect(screen.getByText('Forwarding is ready to start.')).toBeVisible();
      expect(screen.getByRole('button', { name: 'Start forwarding' })).toBeVisible();
    });

    it('Start forwarding reports a refusal, and starts when pressed again', async () => {
      const server = settingsServer(ready());
      let refuse = true;
      const fetchMock = stubFetch({
        ...server.handlers,
        'POST /api/v1/bot/start': () =>
          refuse
            ? fail(400, SETTINGS_MESSAGES.botStartRequirements, 'VALIDATION_ERROR')
            : ok(botStatusOf({ ...server.current, botRunning: true })),
      });
      renderSettings();
      await findCard('forwarding-card');
      const user = person();
      await user.click(screen.getByRole('button', { name: 'Start forwarding' }));
      expect(await screen.findByRole('alert')).toHaveTextContent(
        SETTINGS_MESSAGES.botStartFailed(SETTINGS_MESSAGES.botStartRequirements),
      );
      expect(requestsTo(fetchMock, 'POST /api/v1/bot/start')).toHaveLength(1);

      refuse = false;
      await user.click(screen.getByRole('button', { name: 'Start forwarding' }));
      await waitFor(() => expect(forwarding()).toHaveTextContent('Forwarding active'));
      expect(screen.getByTestId('settings-success')).toHaveTextContent(
        SETTINGS_MESSAGES.botStarted,
      );
      expect(requestsTo(fetchMock, 'POST /api/v1/bot/start')).toHaveLength(2);
    });

    it.each([
      [
        405,
        () => fail(405, 'Method Not Allowed', 'HTTP_405'),
        SETTINGS_MESSAGES.botApiConfiguration,
      ],
      [0, () => Promise.reject(new TypeError('offline')), SETTINGS_MESSAGES.botNetworkError],
      [200, () => ok({ running: 'yes' }), SETTINGS_MESSAGES.botInvalidResponse],
    ])('a start answered %s says so', async (_status, answer, text) => {
      const server = settingsServer(ready());
      stubFetch({ ...server.handlers, 'POST /api/v1/bot/start': answer });
      renderSettings();
      await findCard('forwarding-card');
      await person().click(screen.getByRole('button', { name: 'Start forwarding' }));
      expect(await screen.findByRole('alert')).toHaveTextContent(text);
    });
  });

  describe('X account', () => {
    it('saves a typed username and disconnects it', async () => {
      const { fetchMock, card } = await openCard('x-account-card');
      const user = person();
      await user.click(within(card).getByRole('button', { name: 'Save' }));
      expect(within(card).getByText(SETTINGS_MESSAGES.invalidTwitterUsername)).toBeVisible();
      await user.type(within(card).getByLabelText('Your X username'), '@grace_hopper');
      await user.click(within(card).getByRole('button', { name: 'Save' }));
      expect(await screen.findByText(SETTINGS_MESSAGES.twitterSaved)).toBeVisible();
      expect(requestsTo(fetchMock, 'POST /api/v1/settings')[0]?.body).toEqual({
        twitter_username: 'grace_hopper',
      });
      expect(within(card).getByTestId('x-username')).toHaveTextContent('@grace_hopper');
      expect(within(card).getByText('Entered by hand')).toBeVisible();

      await user.click(within(card).getByRole('button', { name: 'Disconnect' }));
      expect(await screen.findByText(SETTINGS_MESSAGES.twitterDisconnected)).toBeVisible();
      expect(requestsTo(fetchMock, 'POST /api/v1/settings')[1]?.body).toEqual({
        twitter_username: '',
      });
      expect(within(card).getByLabelText('Your X username')).toBeVisible();
    });

    it('connects through X when the server offers it: the browser goes to the authorize URL', async () => {
      const server = settingsServer();
      const assign = vi.spyOn(browserNavigation, 'assign').mockImplementation(() => undefined);
      stubFetch({
        ...server.handlers,
        'GET /api/v1/auth/twitter/status': () => ok(X_OAUTH_AVAILABLE_NOT_CONNECTED),
        'POST /api/v1/auth/twitter/connect': () =>
          ok({ authorizeUrl: 'https://x.com/i/oauth2/authorize?state=s1' }),
      });
      renderSettings();
      const card = await findCard('x-account-card');
      const connect = await within(card).findByRole('button', { name: 'Connect X account' });
      expect(within(card).queryByLabelText('Your X username')).toBeNull();
      await person().click(connect);
      await waitFor(() =>
        expect(assign).toHaveBeenCalledWith('https://x.com/i/oauth2/authorize?state=s1'),
      );
    });

    it('says why connecting through X is refused', async () => {
      const server = settingsServer();
      stubFetch({
        ...server.handlers,
        'GET /api/v1/auth/twitter/status': () => ok(X_OAUTH_AVAILABLE_NOT_CONNECTED),
        'POST /api/v1/auth/twitter/connect': () =>
          fail(400, X_OAUTH_NOT_CONFIGURED_MESSAGE, 'X_OAUTH_NOT_CONFIGURED'),
      });
      renderSettings();
      const card = await findCard('x-account-card');
      await person().click(await within(card).findByRole('button', { name: 'Connect X account' }));
      expect(await screen.findByRole('alert')).toHaveTextContent(X_OAUTH_NOT_CONFIGURED_MESSAGE);
    });

    it('shows an OAuth-connected account and disconnects it through X', async () => {
      const server = settingsServer(
        makeSettings({ twitter_username: 'grace', twitterConnection: 'oauth' }),
      );
      const fetchMock = stubFetch({
        ...server.handlers,
        'GET /api/v1/auth/twitter/status': () =>
          ok({
            available: true,
            connected: true,
            username: 'grace',
            connectedAt: '2025-03-01T10:00:00.000Z',
            method: 'oauth',
          }),
        'POST /api/v1/auth/twitter/disconnect': () => {
          server.set({ ...server.current, twitter_username: null, twitterConnection: 'none' });
          return ok(X_OAUTH_AVAILABLE_NOT_CONNECTED);
        },
      });
      renderSettings();
      const card = await findCard('x-account-card');
      expect(within(card).getByText('Connected with X')).toBeVisible();
      expect(await within(card).findByText('Connected since Mar 1, 2025')).toBeVisible();
      expect(within(card).queryByRole('button', { name: 'Change' })).toBeNull();
      await person().click(within(card).getByRole('button', { name: 'Disconnect' }));
      expect(await screen.findByText(SETTINGS_MESSAGES.twitterDisconnected)).toBeVisible();
      expect(requestsTo(fetchMock, 'POST /api/v1/auth/twitter/disconnect')).toHaveLength(1);
      expect(await within(card).findByRole('button', { name: 'Connect X account' })).toBeVisible();
    });

    it.each([
      ['?twitter=connected', SETTINGS_MESSAGES.twitterSaved, 'settings-success'],
      [
        '?twitter=error&reason=access_denied',
        X_CONNECT_ERROR_MESSAGES.access_denied,
        'settings-error',
      ],
      [
        '?twitter=error&reason=expired_state',
        X_CONNECT_ERROR_MESSAGES.expired_state,
        'settings-error',
      ],
      ['?twitter=error&reason=nonsense', X_CONNECT_ERROR_MESSAGES.internal_error, 'settings-error'],
    ])(
      'back from X with %s: a banner, and the address is cleaned',
      async (search, text, banner) => {
        const server = settingsServer();
        stubFetch(server.handlers);
        const { router } = renderSettings(search);
        expect(await screen.findByTestId(banner)).toHaveTextContent(text);
        await waitFor(() => expect(router.state.location.search).toBe(''));
      },
    );
  });

  describe('delivery log', () => {
    it('lists the latest messages with channel, status, tweet link and error', async () => {
      const { fetchMock, log } = await openDeliveryLog([
        makeDelivery({ id: 3, handle: 'nasa', status: 'sent' }),
        makeDelivery({
          id: 2,
          channel: 'discord',
          handle: 'spacex',
          status: 'failed',
          attempts: 3,
          error: 'Cannot send messages to this user',
          sentAt: null,
          tweetUrl: 'https://x.com/spacex/status/2',
        }),
        makeDelivery({
          id: 1,
          handle: 'esa',
          status: 'pending',
          sentAt: null,
          attempts: 2,
          error: 'Too Many Requests: retry after 3',
          nextAttemptAt: '2025-03-10T12:00:05.000Z',
        }),
      ]);
      const rows = await within(log).findAllByTestId('delivery-row');
      expect(rows).toHaveLength(3);
      expect(rows[0]).toHaveAccessibleName('Telegram message for @nasa: Sent');
      expect(within(rows[0]!).getByText('Liftoff! The crew is on its way.')).toBeVisible();
      expect(rows[1]).toHaveAccessibleName('Discord message for @spacex: Failed');
      expect(within(rows[1]!).getByText('Cannot send messages to this user')).toBeVisible();
      expect(within(rows[1]!).getByText(/3 attempts/)).toBeVisible();
      expect(within(rows[1]!).getByRole('link', { name: 'Open tweet' })).toHaveAttribute(
        'href',
        'https://x.com/spacex/status/2',
      );
      expect(within(rows[2]!).getByText('Pending')).toBeVisible();
      expect(within(rows[2]!).getByText(/next try/)).toBeVisible();

      // One channel only.
      await person().click(within(log).getByRole('radio', { name: 'Discord' }));
      await waitFor(() =>
        expect(
          requestsTo(fetchMock, 'GET /api/v1/settings/deliveries').length,
        ).toBeGreaterThanOrEqual(2),
      );
      const last = fetchMock.mock.calls
        .map(([input]) => new URL(String(input), 'http://localhost'))
        .filter((url) => url.pathname === '/api/v1/settings/deliveries')
        .at(-1);
      expect(last?.searchParams.get('channel')).toBe('discord');
      expect(last?.searchParams.get('limit')).toBe('20');
    });

    it('shows an expired delivery with its reason, and how a sent one went when not as itself', async () => {
      const { log } = await openDeliveryLog([
        makeDelivery({
          id: 3,
          status: 'sent',
          note: 'Sent as plain text: Telegram refused the photo',
        }),
        makeDelivery({ id: 2, status: 'sent', note: 'Sent in one digest of 8 posts.' }),
        makeDelivery({
          id: 1,
          status: 'expired',
          sentAt: null,
          attempts: 40,
          error: 'Given up: not delivered within 24 hours. Last error: Bad Gateway',
        }),
      ]);
      const rows = await within(log).findAllByTestId('delivery-row');
      expect(rows).toHaveLength(3);
      expect(rows[0]).toHaveAccessibleName('Telegram message for @nasa: Sent');
      expect(within(rows[0]!).getByTestId('delivery-note')).toHaveTextContent(
        'Sent as plain text: Telegram refused the photo',
      );
      expect(within(rows[1]!).getByText('Sent in one digest of 8 posts.')).toBeVisible();
      expect(rows[2]).toHaveAccessibleName('Telegram message for @nasa: Expired');
      expect(within(rows[2]!).getByText(/Given up: not delivered within 24 hours/)).toBeVisible();
      expect(within(rows[2]!).queryByTestId('delivery-note')).toBeNull();
    });

    it('says so when the log cannot be loaded, with a retry', async () => {
      const server = settingsServer();
      let broken = true;
      stubFetch({
        ...server.handlers,
        'GET /api/v1/settings/deliveries': () =>
          broken ? fail(500, 'Boom', 'INTERNAL') : ok({ deliveries: [makeDelivery()] }),
      });
      renderSettings();
      const log = await findCard('delivery-log');
      expect(await within(log).findByText('Failed to load the delivery log')).toBeVisible();
      broken = false;
      await person().click(within(log).getByRole('button', { name: 'Retry' }));
      expect(await within(log).findByTestId('delivery-row')).toBeVisible();
    });
  });

  it('points to the Dashboard for the per-handle switches', async () => {
    stubFetch(settingsServer().handlers);
    const { router } = renderSettings();
    const card = await findCard('forwarding-card');
    await person().click(within(card).getByRole('link', { name: 'Dashboard' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });
});

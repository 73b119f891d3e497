import { SETTINGS_MESSAGES } from '@perch/shared';
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { HEALTH_MONITOR_INTERVAL_MS } from '@/lib/polling/intervals';
import { apiTestHooks } from '@/test/api-test-hooks';
import {
  heartbeatHandler,
  ok,
  signedInCheckHandler,
  stubFetch,
  type StubHandler,
} from '@/test/fetch-stub';
import { renderApp } from '@/test/render-app';
import { makeSettings, settingsServer } from '../test/settings-fixtures';

/**
 * The whole app at /settings over a server that can stop answering: while `down`, every request
 * fails the way a browser reports an unreachable server.
 */
function openSettingsWithOutage() {
  const server = settingsServer(makeSettings({ twitter_username: 'ada', telegram_chat_id: '555' }));
  const handlers: Record<string, StubHandler> = {
    ...server.handlers,
    'GET /api/v1/auth/check': signedInCheckHandler(),
    'POST /api/v1/session/heartbeat': heartbeatHandler,
    'GET /api/v1/security/suspicious-activity': () => ok({ hasAlerts: false, alerts: [] }),
  };
  const outage = { down: false };
  stubFetch(
    Object.fromEntries(
      Object.entries(handlers).map(([key, handler]): [string, StubHandler] => [
        key,
        (request) =>
          outage.down ? Promise.reject(new TypeError('Failed to fetch')) : handler(request),
      ]),
    ),
  );
  renderApp('/settings');
  return outage;
}

/** Lets the health monitor run its next check. */
const nextHealthCheck = () => act(() => vi.advanceTimersByTimeAsync(HEALTH_MONITOR_INTERVAL_MS));

const cards = () => screen.getByTestId('settings-cards');

/** Every input, switch and button of the server-backed cards. */
function controls(): HTMLElement[] {
  const inCards = within(cards());
  return [
    ...inCards.getAllByRole('button'),
    ...inCards.getAllByRole('textbox'),
    ...inCards.queryAllByRole('switch'),
  ];
}

describe('Settings during a server outage', () => {
  apiTestHooks();

  it('shows one message, keeps the cards read-only with their values, and recovers by itself', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const outage = openSettingsWithOutage();
    // The first render loads the app's lazy route modules, which is slow on a busy machine.
    const telegram = await screen.findByTestId('telegram-card', {}, { timeout: 15_000 });
    await waitFor(() => expect(within(telegram).getByText('555')).toBeVisible());
    expect(controls().length).toBeGreaterThan(3);
    for (const control of controls()) expect(control).toBeEnabled();
    expect(screen.queryByTestId('connection-banner')).toBeNull();

    outage.down = true;
    await nextHealthCheck();

    const banner = await screen.findByTestId('connection-banner');
    expect(banner).toHaveTextContent('Perch is not answering');
    // One fact, one message: the page adds no warning of its own next to the app-wide one.
    expect(screen.getAllByText(/not answering/i)).toHaveLength(1);
    expect(screen.queryByText(SETTINGS_MESSAGES.apiConnectionIssue)).toBeNull();

    expect(cards()).toBeDisabled();
    for (const control of controls()) expect(control).toBeDisabled();
    // Read-only, not hidden: what is saved stays readable.
    expect(within(telegram).getByText('555')).toBeVisible();
    expect(within(screen.getByTestId('x-account-card')).getByText(/ada/)).toBeVisible();
    // This browser's preferences are saved here, not on the server: they stay usable.
    const preferences = screen.getByRole('region', { name: 'Preferences' });
    for (const control of within(preferences).getAllByRole('switch')) {
      expect(control).toBeEnabled();
    }

    outage.down = false;
    await nextHealthCheck();

    await waitFor(() => expect(screen.queryByTestId('connection-banner')).toBeNull());
    expect(cards()).toBeEnabled();
    for (const control of controls()) expect(control).toBeEnabled();
    expect(within(telegram).getByText('555')).toBeVisible();
  }, 20_000);
});

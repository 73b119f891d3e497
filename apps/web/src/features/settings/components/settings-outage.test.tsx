import { SETTINGS_MESSAGES } from '@perch/shared';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
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
import { makeHandle } from '@/test/api-records';
import { makeSettings, settingsServer } from '../test/settings-fixtures';
import { makeEndpoint, webhooksServer } from '../test/webhook-fixtures';

/**
 * The whole app at /settings over a server that can stop answering: while `down`, every request
 * fails the way a browser reports an unreachable server.
 */
function openSettingsWithOutage(extra: Record<string, StubHandler> = {}) {
  const server = settingsServer(makeSettings({ twitter_username: 'ada', telegram_chat_id: '555' }));
  const handlers: Record<string, StubHandler> = {
    ...server.handlers,
    ...extra,
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

describe('Webhooks and what is forwarded during a server outage', () => {
  apiTestHooks();

  it('turn read-only with the other cards, dialogs included, and come back with the server', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const webhooks = webhooksServer({
      endpoints: [makeEndpoint({ id: 1, name: 'Team alerts' })],
      handles: [makeHandle({ id: 31, handle: 'nasa' })],
    });
    const outage = openSettingsWithOutage(webhooks.handlers);
    const card = await screen.findByTestId('webhooks-card', {}, { timeout: 15_000 });
    const forwarded = screen.getByTestId('forwarded-posts-card');
    const row = await within(card).findByRole('listitem', { name: 'Team alerts' });
    await within(card).findByRole('switch', { name: 'Webhooks for @nasa' });
    await within(forwarded).findAllByRole('switch');
    /** The webhook and forwarding controls, which must follow the page's state. */
    const ours = () => [
      ...within(card).getAllByRole('button'),
      ...within(card).getAllByRole('switch'),
      ...within(forwarded).getAllByRole('switch'),
    ];
    expect(ours().length).toBeGreaterThanOrEqual(9);
    for (const control of ours()) expect(control).toBeEnabled();

    // A dialog opened before the outage sits outside the page's fieldset: it turns read-only too.
    await userEvent
      .setup({ delay: null })
      .click(within(row).getByRole('button', { name: 'Edit Team alerts' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit webhook' });
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeEnabled();

    outage.down = true;
    await nextHealthCheck();
    await screen.findByTestId('connection-banner');

    for (const control of ours()) expect(control).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();
    // Read-only, not hidden.
    expect(within(row).getByTestId('webhook-url')).toHaveTextContent(
      'https://hooks.example.com/perch/1',
    );

    outage.down = false;
    await nextHealthCheck();
    await waitFor(() => expect(screen.queryByTestId('connection-banner')).toBeNull());
    for (const control of ours()) expect(control).toBeEnabled();
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeEnabled();
  }, 20_000);
});

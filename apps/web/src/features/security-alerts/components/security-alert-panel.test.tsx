import { SECURITY_MESSAGES, SECURITY_REFRESH_MS, type SuspiciousAlert } from '@perch/shared';
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fail, ok, requestsTo, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { PHONE, setViewport } from '@/test/viewport';
import { dismissedAlertsStorageKey } from '../hooks/use-dismissed-alerts';
import { SecurityAlertPanel } from './security-alert-panel';

const ALERTS_PATH = 'GET /api/v1/security/suspicious-activity';

const insecure: SuspiciousAlert = {
  id: 'insecure_transport',
  type: 'insecure_transport',
  severity: 'critical',
  message: SECURITY_MESSAGES.alertInsecureTransport,
  timestamp: '2025-03-10T12:00:00.000Z',
};
const failures: SuspiciousAlert = {
  id: 'repeated_failed_logins:2025-03-10',
  type: 'repeated_failed_logins',
  severity: 'high',
  message: SECURITY_MESSAGES.alertRepeatedFailures(6),
  timestamp: '2025-03-10T11:00:00.000Z',
};
const newDevice: SuspiciousAlert = {
  id: 'new_device:firefox-203.0.113.9',
  type: 'new_device',
  severity: 'medium',
  message: SECURITY_MESSAGES.alertNewDevice('Firefox on Windows', '203.0.113.9'),
  timestamp: '2025-03-10T10:00:00.000Z',
};
const manyIps: SuspiciousAlert = {
  id: 'many_ips:4',
  type: 'many_ips',
  severity: 'critical',
  message: SECURITY_MESSAGES.alertManyIps(4),
  timestamp: '2025-03-10T09:00:00.000Z',
};

const answer =
  (...alerts: SuspiciousAlert[]): StubHandler =>
  () =>
    ok({ hasAlerts: alerts.length > 0, alerts });

function renderPanel({ userId = 3, path = '/' } = {}) {
  return renderRoute(path, <SecurityAlertPanel userId={userId} />, {
    routes: [{ path: '/security', element: <p>Security page</p> }],
  });
}

const panel = () => screen.getByRole('region', { name: 'Security alerts' });
const person = () => userEvent.setup({ delay: null });

describe('SecurityAlertPanel', () => {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf; path=/';
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows critical alerts in red with a link to the Security Dashboard, the others behind a count', async () => {
    stubFetch({ [ALERTS_PATH]: answer(newDevice, insecure, failures) });
    const { router } = renderPanel();

    const critical = await screen.findByText(SECURITY_MESSAGES.alertInsecureTransport);
    const card = critical.closest<HTMLElement>('[data-testid="security-alert"]');
    expect(card).toHaveAttribute('data-severity', 'critical');
    expect(within(card!).getByText('Critical: Unencrypted connection')).toBeVisible();
    expect(within(card!).getByRole('button', { name: 'Dismiss alert' })).toBeVisible();
    expect(screen.queryByText(failures.message)).not.toBeInTheDocument();

    const count = within(panel()).getByRole('button', { name: '2 security alerts' });
    expect(count).toHaveAttribute('aria-expanded', 'false');
    const actor = person();
    await actor.click(count);
    expect(count).toHaveAttribute('aria-expanded', 'true');
    const cards = within(panel()).getAllByTestId('security-alert');
    expect(cards.map((element) => element.getAttribute('data-severity'))).toEqual([
      'critical',
      'high',
      'medium',
    ]);
    expect(within(cards[1]!).getByText(failures.message)).toBeVisible();
    expect(within(cards[1]!).getByText('High: Repeated failed sign-ins')).toBeVisible();
    expect(within(cards[2]!).getByText(newDevice.message)).toBeVisible();
    // Only critical alerts can be dismissed.
    expect(within(cards[1]!).queryByRole('button', { name: 'Dismiss alert' })).toBeNull();
    expect(within(cards[2]!).queryByRole('button', { name: 'Dismiss alert' })).toBeNull();

    await actor.click(count);
    expect(screen.queryByText(failures.message)).not.toBeInTheDocument();

    const reviews = within(panel()).getAllByRole('link', { name: 'Review security' });
    expect(reviews).toHaveLength(1);
    expect(reviews[0]).toHaveAttribute('href', '/security');
    await actor.click(reviews[0]!);
    expect(await screen.findByText('Security page')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/security');
  });

  it('shows nothing while there are no alerts', async () => {
    const fetchMock = stubFetch({ [ALERTS_PATH]: answer() });
    renderPanel();
    await vi.waitFor(() => expect(requestsTo(fetchMock, ALERTS_PATH)).toHaveLength(1));
    expect(screen.queryByRole('region', { name: 'Security alerts' })).not.toBeInTheDocument();
  });

  it('asks again every 60 s and shows what is new', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let current = answer();
    const fetchMock = stubFetch({ [ALERTS_PATH]: (request) => current(request) });
    renderPanel();
    await vi.waitFor(() => expect(requestsTo(fetchMock, ALERTS_PATH)).toHaveLength(1));
    expect(screen.queryByRole('region', { name: 'Security alerts' })).not.toBeInTheDocument();

    current = answer(manyIps);
    await act(() => vi.advanceTimersByTimeAsync(SECURITY_REFRESH_MS - 500));
    expect(requestsTo(fetchMock, ALERTS_PATH)).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    expect(requestsTo(fetchMock, ALERTS_PATH)).toHaveLength(2);
    expect(await screen.findByText(manyIps.message)).toBeVisible();

    await act(() => vi.advanceTimersByTimeAsync(SECURITY_REFRESH_MS));
    expect(requestsTo(fetchMock, ALERTS_PATH)).toHaveLength(3);
    expect(SECURITY_REFRESH_MS).toBe(60_000);
  });

  it('keeps a dismissed critical alert away across polls and reloads', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const fetchMock = stubFetch({ [ALERTS_PATH]: answer(insecure, manyIps) });
    const first = renderPanel();
    const card = (await screen.findByText(insecure.message)).closest<HTMLElement>(
      '[data-testid="security-alert"]',
    );
    await person().click(within(card!).getByRole('button', { name: 'Dismiss alert' }));
    expect(screen.queryByText(insecure.message)).not.toBeInTheDocument();
    expect(screen.getByText(manyIps.message)).toBeVisible();
    expect(JSON.parse(window.localStorage.getItem(dismissedAlertsStorageKey(3)) ?? '[]')).toEqual([
      insecure.id,
    ]);

    // The next poll brings it back from the server; it stays dismissed.
    await act(() => vi.advanceTimersByTimeAsync(SECURITY_REFRESH_MS + 100));
    expect(requestsTo(fetchMock, ALERTS_PATH)).toHaveLength(2);
    expect(screen.queryByText(insecure.message)).not.toBeInTheDocument();

    // A reload: a fresh page and cache, the same browser storage.
    first.unmount();
    renderPanel();
    expect(await screen.findByText(manyIps.message)).toBeVisible();
    expect(screen.queryByText(insecure.message)).not.toBeInTheDocument();

    // Dismissing the last one hides the panel.
    await person().click(within(panel()).getByRole('button', { name: 'Dismiss alert' }));
    expect(screen.queryByRole('region', { name: 'Security alerts' })).not.toBeInTheDocument();
  });

  it('shows another user of the same browser the alerts someone else dismissed', async () => {
    window.localStorage.setItem(dismissedAlertsStorageKey(3), JSON.stringify([insecure.id]));
    stubFetch({ [ALERTS_PATH]: answer(insecure) });
    renderPanel({ userId: 4 });
    expect(await screen.findByText(insecure.message)).toBeVisible();
  });

  it('ignores a 404 (a server without the security area) and keeps asking', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let current: StubHandler = () => fail(404, 'Not Found', 'NOT_FOUND');
    const fetchMock = stubFetch({ [ALERTS_PATH]: (request) => current(request) });
    renderPanel();
    await vi.waitFor(() => expect(requestsTo(fetchMock, ALERTS_PATH)).toHaveLength(1));
    expect(screen.queryByRole('region', { name: 'Security alerts' })).not.toBeInTheDocument();
    expect(screen.queryByText('Not Found')).not.toBeInTheDocument();

    current = answer(failures);
    await act(() => vi.advanceTimersByTimeAsync(SECURITY_REFRESH_MS + 100));
    expect(
      await within(panel()).findByRole('button', { name: '1 security alert' }),
    ).toBeInTheDocument();
  });

  it('keeps the last alerts through a failed refresh', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let current = answer(manyIps);
    const fetchMock = stubFetch({ [ALERTS_PATH]: (request) => current(request) });
    renderPanel();
    expect(await screen.findByText(manyIps.message)).toBeVisible();
    current = () => fail(500, 'Internal error', 'INTERNAL');
    await act(() => vi.advanceTimersByTimeAsync(SECURITY_REFRESH_MS + 100));
    expect(requestsTo(fetchMock, ALERTS_PATH)).toHaveLength(2);
    expect(screen.getByText(manyIps.message)).toBeVisible();
    expect(screen.queryByText('Internal error')).not.toBeInTheDocument();
  });

  it('floats at the top right on wide screens and stays in the page flow on phones', async () => {
    stubFetch({ [ALERTS_PATH]: answer(manyIps) });
    const wide = renderPanel();
    await screen.findByText(manyIps.message);
    expect(panel()).toHaveStyle({ position: 'fixed' });
    wide.unmount();

    setViewport(PHONE);
    renderPanel();
    await screen.findByText(manyIps.message);
    expect(panel()).not.toHaveStyle({ position: 'fixed' });
  });

  it('leaves out the review link on the Security Dashboard itself', async () => {
    stubFetch({ [ALERTS_PATH]: answer(manyIps) });
    renderRoute('/security', <SecurityAlertPanel userId={3} />);
    expect(await screen.findByText(manyIps.message)).toBeVisible();
    expect(within(panel()).queryByRole('link', { name: 'Review security' })).toBeNull();
  });
});

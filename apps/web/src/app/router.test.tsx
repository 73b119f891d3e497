import { TAB_CHANNEL_NAME } from '@perch/shared';
import { QueryClient } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { RouterProvider, createMemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  heartbeatHandler,
  ok,
  requestsTo,
  signedInCheckHandler,
  signedOutCheckHandler,
  stubFetch,
} from '@/test/fetch-stub';
import { renderApp } from '@/test/render-app';
import { makeCompleteAnalytics } from '@/features/analytics/test/analytics-fixtures';
import { markSignedOut } from '@/features/auth/api/session-scope';
import { makeHandle } from '@/features/handles/test/handle-fixtures';
import { apiClient } from '@/lib/api-client';
import { ClientRuntime } from '@/lib/client-runtime';
import { AppProvider } from './provider';
import { routes } from './router';

describe('routes', () => {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf; path=/';
  });

  it("shows 'Initializing...' until the session check answers, then sends a stranger to /login", async () => {
    // The answer is held back until the spinner has been seen, however early the check starts.
    let answer: (response: Response) => void = () => undefined;
    const heldBack = new Promise<Response>((resolve) => (answer = resolve));
    stubFetch({ 'GET /api/v1/auth/check': () => heldBack });
    const router = renderApp('/settings');
    expect(await screen.findByText('Initializing...')).toBeInTheDocument();
    answer(ok({ authenticated: false, csrfToken: 'csrf' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('renders the sign-in page without waiting for the session check', async () => {
    stubFetch({ 'GET /api/v1/auth/check': () => new Promise<Response>(() => undefined) });
    renderApp('/login');
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Create an account' })).toHaveAttribute(
      'href',
      '/register',
    );
    expect(screen.queryByText('Initializing...')).not.toBeInTheDocument();
  });

  it('shows the not found page for an unknown path, signed out or in', async () => {
    stubFetch({ 'GET /api/v1/auth/check': signedOutCheckHandler });
    renderApp('/no-such-page');
    expect(await screen.findByText('Page Not Found')).toBeInTheDocument();
    expect(
      screen.getByText("The page you're looking for doesn't exist or has been moved."),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go back home' })).toHaveAttribute('href', '/');
  });

  it('shows the shell with the user badge and no Admin entry for an ordinary user', async () => {
    stubFetch({
      'GET /api/v1/auth/check': signedInCheckHandler(),
      'POST /api/v1/session/heartbeat': heartbeatHandler,
      'GET /api/v1/handles': () => ok({ handles: [] }),
      'GET /api/v1/config': () =>
        ok({ supportEmail: 'help@example.com', tweetSource: 'demo', version: '0.1.0' }),
    });
    renderApp('/');
    expect(await screen.findByText('X Monitoring and Analytics System')).toBeInTheDocument();
    expect(screen.getByTestId('user-badge')).toHaveTextContent('grace');
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Settings' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Admin' })).not.toBeInTheDocument();
    const sidebar = screen.getByTestId('sidebar-handles');
    expect(within(sidebar).getByText('Monitored Handles')).toBeInTheDocument();
    expect(within(sidebar).getByText('0/10')).toBeInTheDocument();
    expect(await within(sidebar).findAllByRole('button', { name: /^Add @/ })).toHaveLength(8);
    expect(await screen.findByText('Demo data')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Toggle color scheme' })).toBeInTheDocument();
  });

  it('tells a non-admin that /admin is off limits', async () => {
    stubFetch({
      'GET /api/v1/auth/check': signedInCheckHandler(),
      'POST /api/v1/session/heartbeat': heartbeatHandler,
    });
    renderApp('/admin');
    expect(
      await screen.findByText('Access Denied. Admin privileges required.'),
    ).toBeInTheDocument();
  });

  it('shows the Admin entry and page to an admin', async () => {
    stubFetch({
      'GET /api/v1/auth/check': signedInCheckHandler({ isAdmin: true }),
      'POST /api/v1/session/heartbeat': heartbeatHandler,
    });
    renderApp('/admin');
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Admin' })).toBeInTheDocument();
  });

  it('sends a heartbeat from the leading tab and signs out with Logout', async () => {
    const fetchMock = stubFetch({
      'GET /api/v1/auth/check': signedInCheckHandler(),
      'POST /api/v1/session/heartbeat': heartbeatHandler,
      'POST /api/v1/auth/logout': () => ok({ loggedOut: true }),
    });
    const runtime = new ClientRuntime(apiClient);
    onTestFinished(runtime.start());
    const router = renderApp('/settings', runtime);
    expect(await screen.findByRole('heading', { name: 'Settings' })).toBeInTheDocument();
    await waitFor(() =>
      expect(requestsTo(fetchMock, 'POST /api/v1/session/heartbeat')).toHaveLength(1),
    );
    expect(requestsTo(fetchMock, 'POST /api/v1/session/heartbeat')[0]?.body).toMatchObject({
      user_id: 3,
      client_id: expect.any(String),
      timestamp: expect.any(Number),
    });

    await userEvent.setup().click(screen.getByRole('button', { name: 'Logout' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/logout')[0]?.body).toEqual({
      user_id: 3,
      action: 'manual_logout',
    });
  });

  it('Logout tells the other tabs before its request, and no page of the session fetches again', async () => {
    const order: string[] = [];
    const fetchMock = stubFetch({
      'GET /api/v1/auth/check': signedInCheckHandler(),
      'POST /api/v1/session/heartbeat': heartbeatHandler,
      'GET /api/v1/handles': () => ok({ handles: [makeHandle({ handle: 'nasa' })] }),
      'GET /api/v1/config': () =>
        ok({ supportEmail: 'help@example.com', tweetSource: 'x-api', version: '0.1.0' }),
      'GET /api/v1/analytics/complete/nasa': () => ok(makeCompleteAnalytics('nasa')),
      'GET /api/v1/security/suspicious-activity': () => ok({ hasAlerts: false, alerts: [] }),
      'HEAD /api/v1/health': () => new Response(null, { status: 200 }),
      'POST /api/v1/auth/logout': () => {
        order.push('logout request');
        return ok({ loggedOut: true });
      },
    });
    // Another tab of this browser, listening on the tabs' channel.
    const otherTab = new BroadcastChannel(TAB_CHANNEL_NAME);
    const heard: unknown[] = [];
    otherTab.addEventListener('message', (event) => heard.push((event as MessageEvent).data));
    onTestFinished(() => otherTab.close());
    const runtime = new ClientRuntime(apiClient);
    // As the app does (app.tsx).
    runtime.onSessionEnd(() => markSignedOut(runtime.queryClient));
    onTestFinished(runtime.start());
    const router = renderApp('/', runtime);
    // The shell's sidebar lists the handles (a query of the session, polled by the leader).
    expect(await screen.findByTestId('sidebar-handle')).toHaveTextContent('nasa');
    await waitFor(() =>
      expect(requestsTo(fetchMock, 'POST /api/v1/session/heartbeat')).toHaveLength(1),
    );
    const postMessage = BroadcastChannel.prototype.postMessage;
    vi.spyOn(BroadcastChannel.prototype, 'postMessage').mockImplementation(function (
      this: BroadcastChannel,
      message: unknown,
    ) {
      if ((message as { payload?: { kind?: string } }).payload?.kind === 'session-ended') {
        order.push('the other tabs told');
      }
      postMessage.call(this, message);
    });

    await userEvent.setup().click(screen.getByRole('button', { name: 'Logout' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    await waitFor(() => expect(order).toEqual(['the other tabs told', 'logout request']));
    await waitFor(() =>
      expect(heard).toContainEqual(expect.objectContaining({ payload: { kind: 'session-ended' } })),
    );
    // Give a page that was still mounted the time to fetch again: none does.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sent = fetchMock.mock.calls.map(([input, init]) => `${init?.method ?? 'GET'} ${input}`);
    const logoutAt = sent.indexOf('POST /api/v1/auth/logout');
    expect(logoutAt).toBeGreaterThan(0);
    expect(sent.slice(logoutAt + 1)).toEqual([]);
  }, 20_000);

  it('a sign-in sent while the logout is under way waits for its answer, and stays signed in', async () => {
    let answerLogout: (response: Response) => void = () => undefined;
    const fetchMock = stubFetch({
      'GET /api/v1/auth/check': signedInCheckHandler(),
      'POST /api/v1/session/heartbeat': heartbeatHandler,
      'POST /api/v1/auth/logout': () =>
        new Promise<Response>((resolve) => {
          answerLogout = resolve;
        }),
      'POST /api/v1/auth/login': () =>
        ok({
          user: {
            id: 3,
            username: 'grace',
            email: 'grace@example.com',
            isAdmin: false,
            isSuperAdmin: false,
            profile: null,
            createdAt: '2025-01-01T00:00:00.000Z',
            lastLoginAt: '2025-01-02T00:00:00.000Z',
          },
          session: { authMethod: 'cookie', rememberMe: false, expiresAt: '2025-02-01T00:00:00Z' },
          message: 'Login successful',
          csrfToken: 'csrf',
        }),
    });
    const runtime = new ClientRuntime(apiClient);
    runtime.onSessionEnd(() => markSignedOut(runtime.queryClient));
    onTestFinished(runtime.start());
    renderApp('/settings', runtime);
    expect(await screen.findByRole('heading', { name: 'Settings' })).toBeInTheDocument();
    const person = userEvent.setup();

    await person.click(screen.getByRole('button', { name: 'Logout' }));
    // The sign-in page shows at once, before the server has answered the logout.
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    await person.type(screen.getByLabelText('Username'), 'grace');
    await person.type(screen.getByLabelText('Password'), 'Corr3ct-Horse!');
    await person.click(screen.getByRole('button', { name: 'Sign in' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/login')).toHaveLength(0);

    answerLogout(ok({ loggedOut: true }));
    await waitFor(() => expect(requestsTo(fetchMock, 'POST /api/v1/auth/login')).toHaveLength(1));
    expect(await screen.findByTestId('user-badge')).toHaveTextContent('grace');
    // The logout's answer came first, so nothing of it signs the new session out.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.getByTestId('user-badge')).toHaveTextContent('grace');
  }, 20_000);

  it('opens the FAQ to everyone', async () => {
    stubFetch({ 'GET /api/v1/auth/check': signedOutCheckHandler });
    renderApp('/faq');
    expect(
      await screen.findByRole('heading', { name: 'Frequently asked questions' }),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('button', { name: 'How do I get an invitation code?' }),
    ).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: 'support@perch.local' }).length).toBeGreaterThan(0);
  });

  it('shows the sign-in and registration pages without Mantine, which comes with the FAQ', async () => {
    stubFetch({ 'GET /api/v1/auth/check': signedOutCheckHandler });
    // The app's own providers, without the Mantine provider renderApp puts around everything.
    const router = createMemoryRouter(routes, { initialEntries: ['/login'] });
    render(
      <AppProvider queryClient={new QueryClient()}>
        <RouterProvider router={router} />
      </AppProvider>,
    );
    const actor = userEvent.setup({ delay: null });
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    await actor.click(screen.getByRole('link', { name: 'Create an account' }));
    expect(await screen.findByRole('button', { name: 'Create account' })).toBeInTheDocument();
    await actor.click(screen.getByRole('link', { name: 'FAQ' }));
    expect(
      await screen.findByRole('heading', { name: 'Frequently asked questions' }),
    ).toBeInTheDocument();
  });
  it('shows the handle named in ?handle on the dashboard, and the sidebar selects another', async () => {
    const handles = [makeHandle({ handle: 'nasa' }), makeHandle({ handle: 'spacex' })];
    const fetchMock = stubFetch({
      'GET /api/v1/auth/check': signedInCheckHandler(),
      'POST /api/v1/session/heartbeat': heartbeatHandler,
      'GET /api/v1/handles': () => ok({ handles }),
      'GET /api/v1/config': () =>
        ok({ supportEmail: 'help@example.com', tweetSource: 'x-api', version: '0.1.0' }),
      'GET /api/v1/analytics/complete/nasa': () => ok(makeCompleteAnalytics('nasa')),
      'GET /api/v1/analytics/complete/spacex': () => ok(makeCompleteAnalytics('spacex')),
    });
    const router = renderApp('/?handle=SpaceX');
    const picker = await screen.findByRole('combobox', { name: 'Handle' });
    await waitFor(() => expect(picker).toHaveValue('spacex'));
    expect(await screen.findByTestId('summary-card-total_tweets')).toHaveAttribute(
      'data-value',
      '1234',
    );
    expect(requestsTo(fetchMock, 'GET /api/v1/analytics/complete/spacex')).toHaveLength(1);
    expect(screen.queryByText('Demo data')).not.toBeInTheDocument();
    const sidebar = screen.getByTestId('sidebar-handles');
    const rows = within(sidebar).getAllByTestId('sidebar-handle');
    expect(rows[1]).toHaveAttribute('aria-current', 'true');
    await userEvent.setup().click(rows[0]!);
    await waitFor(() => expect(picker).toHaveValue('nasa'));
    expect(router.state.location.search).toBe('?handle=nasa');
    // Two full dashboard renders: more than the default 5 s on a busy 2-core machine.
  }, 15_000);

  it('falls back to the first handle when ?handle names none of them', async () => {
    stubFetch({
      'GET /api/v1/auth/check': signedInCheckHandler(),
      'POST /api/v1/session/heartbeat': heartbeatHandler,
      'GET /api/v1/handles': () => ok({ handles: [makeHandle({ handle: 'nasa' })] }),
      'GET /api/v1/analytics/complete/nasa': () => ok(makeCompleteAnalytics('nasa')),
    });
    renderApp('/?handle=unknown');
    const picker = await screen.findByRole('combobox', { name: 'Handle' });
    await waitFor(() => expect(picker).toHaveValue('nasa'));
  });

  it('shows the analytics of the selected handle from the lazily loaded chunk', async () => {
    stubFetch({
      'GET /api/v1/auth/check': signedInCheckHandler(),
      'POST /api/v1/session/heartbeat': heartbeatHandler,
      'GET /api/v1/handles': () => ok({ handles: [] }),
    });
    renderApp('/');
    expect(await screen.findByText('No handle selected')).toBeInTheDocument();
    expect(screen.getByTestId('analytics-view')).toBeInTheDocument();
    expect(screen.getByTestId('handle-panel')).toBeInTheDocument();
  });
});

import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { RouterProvider, createMemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import {
  ok,
  requestsTo,
  signedOutCheckHandler,
  stubFetch,
  type StubHandler,
} from '@/test/fetch-stub';
import { makeCompleteAnalytics } from '@/features/analytics/test/analytics-fixtures';
import { makeHandle } from '@/features/handles/test/handle-fixtures';
import { apiClient } from '@/lib/api-client';
import { ClientRuntime } from '@/lib/client-runtime';
import { ClientRuntimeProvider } from '@/lib/client-runtime-react';
import { routes } from './router';
import { theme } from './theme';

function signedIn(overrides: Record<string, unknown> = {}): StubHandler {
  return () =>
    ok({
      authenticated: true,
      userId: 3,
      username: 'grace',
      email: 'grace@example.com',
      isAdmin: false,
      isSuperAdmin: false,
      profile: null,
      csrfToken: 'csrf',
      ...overrides,
    });
}

const heartbeat: StubHandler = () => ok({ received: true, serverTime: new Date().toISOString() });

function renderApp(path: string, runtime: ClientRuntime | null = null) {
  const queryClient =
    runtime?.queryClient ??
    new QueryClient({
      defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
    });
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  render(
    <MantineProvider theme={theme} env="test">
      <QueryClientProvider client={queryClient}>
        <ClientRuntimeProvider runtime={runtime}>
          <RouterProvider router={router} />
        </ClientRuntimeProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return router;
}

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
      'GET /api/v1/auth/check': signedIn(),
      'POST /api/v1/session/heartbeat': heartbeat,
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
      'GET /api/v1/auth/check': signedIn(),
      'POST /api/v1/session/heartbeat': heartbeat,
    });
    renderApp('/admin');
    expect(
      await screen.findByText('Access Denied. Admin privileges required.'),
    ).toBeInTheDocument();
  });

  it('shows the Admin entry and page to an admin', async () => {
    stubFetch({
      'GET /api/v1/auth/check': signedIn({ isAdmin: true }),
      'POST /api/v1/session/heartbeat': heartbeat,
    });
    renderApp('/admin');
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Admin' })).toBeInTheDocument();
  });

  it('sends a heartbeat from the leading tab and signs out with Logout', async () => {
    const fetchMock = stubFetch({
      'GET /api/v1/auth/check': signedIn(),
      'POST /api/v1/session/heartbeat': heartbeat,
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
  it('shows the handle named in ?handle on the dashboard, and the sidebar selects another', async () => {
    const handles = [makeHandle({ handle: 'nasa' }), makeHandle({ handle: 'spacex' })];
    const fetchMock = stubFetch({
      'GET /api/v1/auth/check': signedIn(),
      'POST /api/v1/session/heartbeat': heartbeat,
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
      'GET /api/v1/auth/check': signedIn(),
      'POST /api/v1/session/heartbeat': heartbeat,
      'GET /api/v1/handles': () => ok({ handles: [makeHandle({ handle: 'nasa' })] }),
      'GET /api/v1/analytics/complete/nasa': () => ok(makeCompleteAnalytics('nasa')),
    });
    renderApp('/?handle=unknown');
    const picker = await screen.findByRole('combobox', { name: 'Handle' });
    await waitFor(() => expect(picker).toHaveValue('nasa'));
  });

  it('shows the analytics of the selected handle from the lazily loaded chunk', async () => {
    stubFetch({
      'GET /api/v1/auth/check': signedIn(),
      'POST /api/v1/session/heartbeat': heartbeat,
      'GET /api/v1/handles': () => ok({ handles: [] }),
    });
    renderApp('/');
    expect(await screen.findByText('No handle selected')).toBeInTheDocument();
    expect(screen.getByTestId('analytics-view')).toBeInTheDocument();
    expect(screen.getByTestId('handle-panel')).toBeInTheDocument();
  });
});

import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { RouterProvider, createMemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import { authCheckQueryKey } from '@/features/auth/api/get-auth-check';
import { fail, ok, requestsTo, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { theme } from '../theme';
import { ProtectedRoute } from './protected-route';

const signedIn = () =>
  ok({ authenticated: true, userId: 3, username: 'grace', email: 'g@example.com', csrfToken: 'c' });

function renderGuarded(check: StubHandler) {
  const fetchMock = stubFetch({ 'GET /api/v1/auth/check': check });
  // No waiting between the check's own retries.
  const queryClient = new QueryClient({ defaultOptions: { queries: { retryDelay: 0 } } });
  const router = createMemoryRouter(
    [
      { element: <ProtectedRoute />, children: [{ path: '/', element: <p>Dashboard</p> }] },
      { path: '/login', element: <p>Sign-in page</p> },
    ],
    { initialEntries: ['/'] },
  );
  render(
    <MantineProvider theme={theme} env="test">
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>,
  );
  return { fetchMock, queryClient, router };
}

describe('ProtectedRoute', () => {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf; path=/';
  });

  it('shows a retry screen, not the sign-in page, when the session check gets no answer', async () => {
    let down = true;
    const { fetchMock, router } = renderGuarded(() =>
      down ? Promise.reject(new TypeError('Failed to fetch')) : signedIn(),
    );
    expect(await screen.findByTestId('session-unreachable')).toHaveTextContent(
      'Perch is not answering',
    );
    expect(router.state.location.pathname).toBe('/');
    expect(screen.queryByText('Sign-in page')).toBeNull();
    // One check and its two retries, then it waits for Try again: no loop of checks.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requestsTo(fetchMock, 'GET /api/v1/auth/check')).toHaveLength(3);
    down = false;
    await userEvent.setup({ delay: null }).click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Dashboard')).toBeInTheDocument();
    expect(requestsTo(fetchMock, 'GET /api/v1/auth/check').length).toBeGreaterThan(1);
  });

  it('keeps the signed-in user through a failed re-check (a blip or a 5xx), and signs out on a verdict', async () => {
    let answer: StubHandler = signedIn;
    const { queryClient, router } = renderGuarded((request) => answer(request));
    expect(await screen.findByText('Dashboard')).toBeInTheDocument();

    answer = () => Promise.reject(new TypeError('Failed to fetch'));
    await act(() => queryClient.refetchQueries({ queryKey: authCheckQueryKey }));
    expect(screen.getByText('Dashboard')).toBeInTheDocument();

    answer = () => fail(503, 'Service unavailable', 'UNAVAILABLE');
    await act(() => queryClient.refetchQueries({ queryKey: authCheckQueryKey }));
    expect(screen.getByText('Dashboard')).toBeInTheDocument();

    // The server's own answer that nobody is signed in is a verdict.
    answer = () => ok({ authenticated: false, csrfToken: 'c' });
    await act(() => queryClient.refetchQueries({ queryKey: authCheckQueryKey }));
    expect(await screen.findByText('Sign-in page')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });
});

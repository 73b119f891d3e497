import { useEffect, useState } from 'react';
import { RouterProvider } from 'react-router';
import { signedOutCheck, authCheckQueryKey } from '@/features/auth/api/get-auth-check';
import { dropAccountQueries, scopeQueriesToAccount } from '@/features/auth/api/session-scope';
import { apiClient } from '@/lib/api-client';
import type { ClientRuntime } from '@/lib/client-runtime';
import { PollGate } from '@/lib/polling/poll-gate';
import { createQueryClient } from '@/lib/query-client';
import { AppProvider } from './provider';
import { createAppRouter } from './router';

// The query cache polls through the poll gate, which the client runtime (tab leadership, the
// retry circuit and request pacing, visibility and network awareness) binds once it has loaded:
// it is fetched after the first screen, so the sign-in page does not wait for it.
const pollGate = new PollGate();
const queryClient = createQueryClient({ pollGate });
const runtimeReady: Promise<ClientRuntime> = import('@/lib/client-runtime').then(
  ({ ClientRuntime }) => {
    const runtime = new ClientRuntime(apiClient, { pollGate, queryClient });
    runtime.start();
    return runtime;
  },
);
const router = createAppRouter();
// When a session ends (401, logout, another account signing in) the previous account's cached
// queries go at once: nothing of theirs shows for, or is sent on behalf of, whoever is next.
scopeQueriesToAccount(queryClient);

// An expired session (a 401 outside the exempt paths) signs the browser out and goes to the
// sign-in page inside the SPA, keeping the history clean.
apiClient.configure({
  onUnauthorized: () => {
    queryClient.setQueryData(authCheckQueryKey, (previous) => signedOutCheck(previous?.csrfToken));
    dropAccountQueries(queryClient);
  },
  redirectToLogin: () => {
    if (router.state.location.pathname.replace(/\/+$/, '').endsWith('/login')) return;
    void router.navigate('/login', { replace: true });
  },
});

/** The whole app: providers around the router. */
export function App() {
  const [runtime, setRuntime] = useState<ClientRuntime | null>(null);
  useEffect(() => {
    let mounted = true;
    void runtimeReady.then((ready) => mounted && setRuntime(ready));
    return () => {
      mounted = false;
    };
  }, []);
  return (
    <AppProvider queryClient={queryClient} runtime={runtime ?? 'loading'}>
      <RouterProvider router={router} />
    </AppProvider>
  );
}

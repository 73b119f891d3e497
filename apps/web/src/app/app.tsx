import { useEffect, useState } from 'react';
import { RouterProvider } from 'react-router';
import { markSignedOut, scopeQueriesToAccount } from '@/features/auth/api/session-scope';
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
    // A sign-out in this tab or another ends the session here too, before the logout request
    // has left the signing-out tab: the signed-in pages (with the stream and the polls) give way
    // to the sign-in page at once.
    runtime.onSessionEnd(() => markSignedOut(queryClient));
    runtime.start();
    return runtime;
  },
);
const router = createAppRouter();
// When a session ends (401, logout, another account signing in) the previous account's cached
// queries go at once: nothing of theirs shows for, or is sent on behalf of, whoever is next.
scopeQueriesToAccount(queryClient);

/** To the sign-in page inside the SPA, keeping the history clean (unless already there). */
function goToSignIn() {
  if (router.state.location.pathname.replace(/\/+$/, '').endsWith('/login')) return;
  void router.navigate('/login', { replace: true });
}

// An expired session (a 401 outside the exempt paths) signs the browser out and goes to the
// sign-in page.
apiClient.configure({
  onUnauthorized: () => markSignedOut(queryClient),
  redirectToLogin: goToSignIn,
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

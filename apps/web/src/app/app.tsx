import { RouterProvider } from 'react-router';
import { signedOutCheck, authCheckQueryKey } from '@/features/auth/api/get-auth-check';
import { apiClient } from '@/lib/api-client';
import { ClientRuntime } from '@/lib/client-runtime';
import { RenderMonitor } from '@/lib/preferences';
import { AppProvider } from './provider';
import { createAppRouter } from './router';

// One runtime for the page: tab leadership, the poll gate, the retry circuit and request pacing,
// visibility and network awareness. Its query cache is the app's.
const runtime = new ClientRuntime(apiClient);
const { queryClient } = runtime;
runtime.start();
const router = createAppRouter();

// An expired session (a 401 outside the exempt paths) signs the browser out and goes to the
// sign-in page inside the SPA, keeping the history clean (doc 2 §8.1).
apiClient.configure({
  onUnauthorized: () => {
    queryClient.setQueryData(authCheckQueryKey, (previous) => signedOutCheck(previous?.csrfToken));
  },
  redirectToLogin: () => {
    if (router.state.location.pathname.replace(/\/+$/, '').endsWith('/login')) return;
    void router.navigate('/login', { replace: true });
  },
});

/** The whole app: providers around the router. */
export function App() {
  return (
    <AppProvider queryClient={queryClient} runtime={runtime}>
      <RenderMonitor id="app">
        <RouterProvider router={router} />
      </RenderMonitor>
    </AppProvider>
  );
}

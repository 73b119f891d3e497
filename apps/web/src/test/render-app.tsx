import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { RouterProvider, createMemoryRouter } from 'react-router';
import { routes } from '@/app/router';
import { theme } from '@/app/theme';
import type { ClientRuntime } from '@/lib/client-runtime';
import { ClientRuntimeProvider } from '@/lib/client-runtime-react';
import { clearAfterTest } from './query-clients';

/**
 * Renders the whole app at `path` in a memory router, with the runtime's query cache or a fresh,
 * retry-free one.
 */
export function renderApp(path: string, runtime: ClientRuntime | null = null) {
  const queryClient = clearAfterTest(
    runtime?.queryClient ??
      new QueryClient({
        defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
      }),
  );
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

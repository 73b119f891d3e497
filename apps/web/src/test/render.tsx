import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { RouterProvider, createMemoryRouter, type RouteObject } from 'react-router';
import { theme } from '@/app/theme';
import { clearAfterTest } from './query-clients';

export interface RenderRouteOptions {
  /** Extra routes next to the one under test, e.g. a home page to land on. */
  routes?: RouteObject[];
  initialPath?: string;
}

/**
 * Renders an element at `path` inside a memory router with the app's theme and a fresh,
 * retry-free query cache.
 */
export function renderRoute(path: string, element: ReactElement, options: RenderRouteOptions = {}) {
  const queryClient = clearAfterTest(
    new QueryClient({
      defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
    }),
  );
  const router = createMemoryRouter([{ path, element }, ...(options.routes ?? [])], {
    initialEntries: [options.initialPath ?? path],
  });
  const view = render(
    <MantineProvider theme={theme} env="test">
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>,
  );
  return { ...view, router, queryClient };
}

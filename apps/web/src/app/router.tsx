import { createBrowserRouter, type RouteObject } from 'react-router';
import { FullPageLoader } from '@/components/full-page-loader';
import { AuthGate } from './guards/auth-gate';
import { LoginRoute } from './routes/login';
import { RouteErrorPage } from './routes/error-page';

/** Where the server serves the SPA (docs/spec-notes.md, API conventions). */
export const ROUTER_BASENAME = '/dashboard';

/**
 * The entry holds the root gate, the error page and the sign-in page, the first page of every
 * visit without a session: it shows without waiting for a chunk of its own. These and the
 * registration page are drawn with plain components (components/plain), not Mantine; every page
 * built with Mantine sits under MantineLayout, whose chunk brings Mantine's provider and styles.
 * Every other page is its own chunk, loaded when it is opened (the router keeps the current
 * page, with the shell's progress bar, until it has): the sign-in page carries neither Mantine,
 * the signed-in guard and shell nor any signed-in page, and the admin, alerts, settings,
 * security and analytics code loads on demand.
 * A chunk that fails to load (e.g. after an update) shows the error page with a reload, inside
 * the shell when signed in.
 */
export const routes: RouteObject[] = [
  {
    element: <AuthGate />,
    errorElement: <RouteErrorPage />,
    hydrateFallbackElement: <FullPageLoader />,
    children: [
      { path: 'login', Component: LoginRoute },
      { path: 'register', lazy: () => import('./routes/register') },
      {
        // Mantine's provider and styles, for every page below.
        lazy: () => import('./layout/mantine-layout'),
        children: [
          { path: 'faq', lazy: () => import('./routes/faq') },
          {
            // The signed-in guard and shell load after sign-in: the login page does not carry them.
            lazy: () =>
              import('./guards/protected-route').then(({ ProtectedRoute }) => ({
                Component: ProtectedRoute,
              })),
            children: [
              {
                lazy: () =>
                  import('./layout/app-layout').then(({ AppLayout }) => ({ Component: AppLayout })),
                children: [
                  {
                    // A page that fails (or whose chunk does not load) leaves the header and menu.
                    errorElement: <RouteErrorPage inShell />,
                    children: [
                      { index: true, lazy: () => import('./routes/dashboard') },
                      { path: 'dashboard', lazy: () => import('./routes/dashboard') },
                      { path: 'alerts', lazy: () => import('./routes/alerts') },
                      { path: 'settings', lazy: () => import('./routes/settings') },
                      { path: 'admin', lazy: () => import('./routes/admin') },
                      { path: 'security', lazy: () => import('./routes/security') },
                    ],
                  },
                ],
              },
            ],
          },
          { path: '*', lazy: () => import('./routes/not-found') },
        ],
      },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes, { basename: ROUTER_BASENAME });
}

export type AppRouter = ReturnType<typeof createAppRouter>;

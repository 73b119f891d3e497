import { createBrowserRouter, type RouteObject } from 'react-router';
import { FullPageLoader } from '@/components/full-page-loader';
import { AuthGate } from './guards/auth-gate';
import { ProtectedRoute } from './guards/protected-route';
import { RouteErrorPage } from './routes/error-page';

/** Where the server serves the SPA (docs/spec-notes.md, API conventions). */
export const ROUTER_BASENAME = '/dashboard';

/** Every page is its own chunk; the shell, guards and error page load with the entry. */
export const routes: RouteObject[] = [
  {
    element: <AuthGate />,
    errorElement: <RouteErrorPage />,
    hydrateFallbackElement: <FullPageLoader />,
    children: [
      { path: 'login', lazy: () => import('./routes/login') },
      { path: 'register', lazy: () => import('./routes/register') },
      { path: 'faq', lazy: () => import('./routes/faq') },
      {
        element: <ProtectedRoute />,
        children: [
          {
            // The signed-in shell loads after sign-in: the login page does not carry it.
            lazy: () =>
              import('./layout/app-layout').then(({ AppLayout }) => ({ Component: AppLayout })),
            children: [
              { index: true, lazy: () => import('./routes/dashboard') },
              { path: 'dashboard', lazy: () => import('./routes/dashboard') },
              { path: 'settings', lazy: () => import('./routes/settings') },
              { path: 'admin', lazy: () => import('./routes/admin') },
              { path: 'security', lazy: () => import('./routes/security') },
            ],
          },
        ],
      },
      { path: '*', lazy: () => import('./routes/not-found') },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes, { basename: ROUTER_BASENAME });
}

export type AppRouter = ReturnType<typeof createAppRouter>;

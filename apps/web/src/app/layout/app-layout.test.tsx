import { SECURITY_MESSAGES } from '@perch/shared';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { ok, stubFetch } from '@/test/fetch-stub';
import { renderApp } from '@/test/render-app';

describe('AppLayout', () => {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf; path=/';
  });

  it("shows the signed-in user's security alerts on every page", async () => {
    stubFetch({
      'GET /api/v1/auth/check': () =>
        ok({ authenticated: true, userId: 3, username: 'grace', csrfToken: 'csrf' }),
      'POST /api/v1/session/heartbeat': () => ok({ received: true }),
      'GET /api/v1/handles': () => ok({ handles: [] }),
      'GET /api/v1/security/suspicious-activity': () =>
        ok({
          hasAlerts: true,
          alerts: [
            {
              id: 'insecure_transport',
              type: 'insecure_transport',
              severity: 'critical',
              message: SECURITY_MESSAGES.alertInsecureTransport,
              timestamp: '2025-03-10T12:00:00.000Z',
            },
          ],
        }),
    });
    renderApp('/admin');
    expect(await screen.findByText('Access Denied. Admin privileges required.')).toBeVisible();
    const panel = await screen.findByRole('region', { name: 'Security alerts' });
    expect(within(panel).getByText(SECURITY_MESSAGES.alertInsecureTransport)).toBeVisible();
    expect(within(panel).getByRole('link', { name: 'Review security' })).toHaveAttribute(
      'href',
      '/security',
    );
  });
});

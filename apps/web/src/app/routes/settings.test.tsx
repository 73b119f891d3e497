import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { settingsServer } from '@/features/settings/test/settings-fixtures';
import { ok, requestsTo, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { SettingsRoute } from './settings';

function signedIn(roles: { isAdmin: boolean; isSuperAdmin: boolean }): StubHandler {
  return () =>
    ok({
      authenticated: true,
      userId: 1,
      username: 'grace',
      email: 'grace@example.com',
      profile: null,
      csrfToken: 'csrf',
      ...roles,
    });
}

function renderSettingsRoute(roles: { isAdmin: boolean; isSuperAdmin: boolean }) {
  const fetchMock = stubFetch({
    ...settingsServer().handlers,
    'GET /api/v1/auth/check': signedIn(roles),
    'GET /api/v1/admin/twitter-challenge-status': () =>
      ok({
        status: 'IDLE',
        challenge_type: null,
        challenge_details: null,
        last_challenge_at: null,
      }),
  });
  renderRoute('/settings', <SettingsRoute />);
  return fetchMock;
}

describe('Settings route', () => {
  it('shows the verification panel to a super admin', async () => {
    renderSettingsRoute({ isAdmin: true, isSuperAdmin: true });
    expect(await screen.findByText('Twitter account verification')).toBeVisible();
    expect(await screen.findByText('No verification needed')).toBeVisible();
  });

  it('shows no verification panel, and asks nothing, for an admin or a user', async () => {
    const fetchMock = renderSettingsRoute({ isAdmin: true, isSuperAdmin: false });
    expect(await screen.findByTestId('telegram-card')).toBeVisible();
    expect(screen.queryByText('Twitter account verification')).toBeNull();
    expect(requestsTo(fetchMock, 'GET /api/v1/admin/twitter-challenge-status')).toHaveLength(0);
  });

  it('links to the Security Dashboard, which the menu does not list', async () => {
    renderSettingsRoute({ isAdmin: false, isSuperAdmin: false });
    expect(await screen.findByTestId('telegram-card')).toBeVisible();
    expect(screen.getByRole('link', { name: 'Security' })).toHaveAttribute('href', '/security');
  });
});

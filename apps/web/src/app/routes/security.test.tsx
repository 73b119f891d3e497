import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { sampleSecurityServer } from '@/features/security/test/security-fixtures';
import { heartbeatHandler, signedInCheckHandler, stubFetch } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { renderApp } from '@/test/render-app';
import { SecurityRoute } from './security';

const CARDS = [
  'Overview',
  'Sessions',
  'Sign-in history',
  'Security events',
  'Two-factor sign-in',
  'Security alerts',
  'Change password',
  'Report an incident',
];

describe('Security route', () => {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf; path=/';
  });

  it('shows the Security Dashboard with every card', async () => {
    stubFetch(sampleSecurityServer().handlers);
    renderRoute('/security', <SecurityRoute />);
    expect(screen.getByRole('heading', { level: 2, name: 'Security Dashboard' })).toBeVisible();
    for (const name of CARDS) expect(screen.getByRole('region', { name })).toBeInTheDocument();
    expect(await screen.findAllByTestId('session-row')).toHaveLength(3);
  });

  it('rates the new password with the registration page’s strength meter', async () => {
    stubFetch(sampleSecurityServer().handlers);
    renderRoute('/security', <SecurityRoute />);
    const form = within(screen.getByRole('region', { name: 'Change password' }));
    await userEvent.setup({ delay: null }).type(form.getByLabelText('New password'), 'abc');
    expect(form.getByTestId('password-strength-level')).toBeVisible();
    expect(form.getByRole('list', { name: 'Requirements' })).toBeVisible();
  });

  it('is reachable at /security when signed in, without a menu entry', async () => {
    stubFetch({
      ...sampleSecurityServer().handlers,
      'GET /api/v1/auth/check': signedInCheckHandler(),
      'POST /api/v1/session/heartbeat': heartbeatHandler,
    });
    renderApp('/security');
    expect(
      await screen.findByRole('heading', { level: 2, name: 'Security Dashboard' }),
    ).toBeVisible();
    const menu = screen.getByRole('navigation', { name: 'Menu' });
    expect(within(menu).getByRole('link', { name: 'Settings' })).toBeInTheDocument();
    expect(within(menu).queryByRole('link', { name: /Security/ })).toBeNull();
  });
});

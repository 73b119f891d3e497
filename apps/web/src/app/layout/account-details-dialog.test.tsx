import { SECURITY_MESSAGES } from '@perch/shared';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { heartbeatHandler, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { renderApp } from '@/test/render-app';
import { CURRENT_PASSWORD, securityServer } from '@/features/security/test/security-fixtures';

describe('Account details from the account menu', () => {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf; path=/';
  });

  it('opens both forms from the badge, and the badge follows a new address', async () => {
    let email = 'grace@example.com';
    const fetchMock = stubFetch({
      ...securityServer().handlers,
      'GET /api/v1/auth/check': () =>
        ok({ authenticated: true, userId: 3, username: 'grace', email, csrfToken: 'csrf' }),
      'POST /api/v1/session/heartbeat': heartbeatHandler,
      'GET /api/v1/handles': () => ok({ handles: [] }),
      'GET /api/v1/security/suspicious-activity': () => ok({ hasAlerts: false, alerts: [] }),
      'POST /api/v1/auth/change-email': (request) => {
        email = (request.body as { email: string }).email;
        return securityServer().handlers['POST /api/v1/auth/change-email']!(request);
      },
    });
    renderApp('/admin');
    const user = userEvent.setup({ delay: null });
    const badge = await screen.findByTestId('user-badge');
    expect(badge).toHaveTextContent('grace');

    await user.click(badge);
    await user.click(await screen.findByRole('menuitem', { name: 'Account details' }));
    const dialog = await screen.findByRole('dialog', { name: 'Account details' });
    const emailForm = within(dialog).getByRole('region', { name: 'Change email' });
    expect(within(dialog).getByRole('region', { name: 'Change password' })).toBeVisible();
    expect(within(emailForm).getByText('Your email address is grace@example.com.')).toBeVisible();

    // The new password gets the registration page's strength meter.
    await user.type(within(dialog).getByLabelText('New password'), 'abc');
    expect(within(dialog).getByText('At least 8 characters')).toBeVisible();

    const checksBefore = requestsTo(fetchMock, 'GET /api/v1/auth/check').length;
    await user.type(within(emailForm).getByLabelText('New email'), 'grace@example.org');
    await user.type(within(emailForm).getByLabelText('Current password'), CURRENT_PASSWORD);
    await user.click(within(emailForm).getByRole('button', { name: 'Change email' }));
    expect(await within(emailForm).findByTestId('email-outcome-success')).toHaveTextContent(
      SECURITY_MESSAGES.emailChanged,
    );
    expect(
      await within(emailForm).findByText('Your email address is grace@example.org.'),
    ).toBeVisible();
    expect(requestsTo(fetchMock, 'GET /api/v1/auth/check').length).toBeGreaterThan(checksBefore);
    expect(screen.getByTestId('user-badge')).toHaveAttribute('title', 'grace@example.org');
  }, 15_000);
});

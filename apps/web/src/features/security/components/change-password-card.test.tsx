import { MESSAGES, SECURITY_MESSAGES } from '@perch/shared';
import { within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, requestsTo, stubFetch } from '@/test/fetch-stub';
import { CURRENT_PASSWORD, securityServer } from '../test/security-fixtures';
import { card, person, renderSecurity, withCsrfCookie } from '../test/render-security';
import { ChangePasswordCard } from './change-password-card';

const passwordCard = () => card('Change password');
const field = (name: string) => within(passwordCard()).getByLabelText(name);
const submit = () => within(passwordCard()).getByRole('button', { name: 'Change password' });

/** Types the current password and a new one (twice), and sends the form. */
async function sendPasswords(user: ReturnType<typeof person>, current: string, fresh: string) {
  await user.type(field('Current password'), current);
  await user.type(field('New password'), fresh);
  await user.type(field('Confirm new password'), fresh);
  await user.click(submit());
}

describe('Change password', () => {
  withCsrfCookie();

  it('checks the fields before sending anything', async () => {
    const fetchMock = stubFetch(securityServer().handlers);
    renderSecurity(<ChangePasswordCard />);
    const user = person();
    await user.type(field('New password'), 'short');
    await user.type(field('Confirm new password'), 'shorter');
    await user.click(submit());
    expect(within(passwordCard()).getByText(MESSAGES.loginPasswordRequired)).toBeVisible();
    expect(
      within(passwordCard()).getByText('Password must be at least 8 characters long.'),
    ).toBeVisible();
    expect(within(passwordCard()).getByText(MESSAGES.passwordsDoNotMatch)).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/change-password')).toHaveLength(0);
  });

  it('changes the password with the server’s message and clears the form', async () => {
    const fetchMock = stubFetch(securityServer().handlers);
    renderSecurity(<ChangePasswordCard />);
    const user = person();
    await sendPasswords(user, CURRENT_PASSWORD, 'a-much-better-one-42');
    expect(await within(passwordCard()).findByTestId('password-outcome-success')).toHaveTextContent(
      SECURITY_MESSAGES.passwordChanged,
    );
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/change-password')[0]?.body).toEqual({
      currentPassword: CURRENT_PASSWORD,
      newPassword: 'a-much-better-one-42',
    });
    expect(field('Current password')).toHaveValue('');
    expect(field('New password')).toHaveValue('');
  });

  it('puts a wrong current password on its field', async () => {
    stubFetch(securityServer().handlers);
    renderSecurity(<ChangePasswordCard />);
    const user = person();
    await sendPasswords(user, 'not-it', 'a-much-better-one-42');
    expect(
      await within(passwordCard()).findByText(SECURITY_MESSAGES.currentPasswordWrong),
    ).toBeVisible();
    expect(within(passwordCard()).queryByTestId('password-outcome-success')).toBeNull();
  });

  it('puts a common password on the new password field, from the form and from the server', async () => {
    const server = securityServer();
    const fetchMock = stubFetch({
      ...server.handlers,
      'POST /api/v1/auth/change-password': (request) => {
        const body = request.body as { newPassword?: string };
        return body.newPassword === 'Letmein-123'
          ? fail(400, MESSAGES.passwordTooCommon, 'PASSWORD_TOO_COMMON')
          : server.handlers['POST /api/v1/auth/change-password']!(request);
      },
    });
    renderSecurity(<ChangePasswordCard />);
    const user = person();
    await sendPasswords(user, CURRENT_PASSWORD, 'password123');
    expect(field('New password')).toHaveAccessibleDescription(MESSAGES.passwordTooCommon);
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/change-password')).toHaveLength(0);

    for (const name of ['New password', 'Confirm new password']) {
      await user.clear(field(name));
      await user.type(field(name), 'Letmein-123');
    }
    await user.click(submit());
    expect(await within(passwordCard()).findByText(MESSAGES.passwordTooCommon)).toBeVisible();
    expect(field('New password')).toHaveAccessibleDescription(MESSAGES.passwordTooCommon);
    expect(within(passwordCard()).queryByTestId('password-outcome-success')).toBeNull();
  });

  it('shows the guidance it is given under the new password', async () => {
    stubFetch(securityServer().handlers);
    renderSecurity(
      <ChangePasswordCard strengthMeter={(password) => <p>Strength of {password.length}</p>} />,
    );
    await person().type(field('New password'), 'abcdef');
    expect(within(passwordCard()).getByText('Strength of 6')).toBeVisible();
  });
});

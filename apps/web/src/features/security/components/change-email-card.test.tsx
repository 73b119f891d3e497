import { MESSAGES, SECURITY_MESSAGES } from '@perch/shared';
import { within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fail, requestsTo, stubFetch } from '@/test/fetch-stub';
import { CURRENT_PASSWORD, TAKEN_EMAIL, securityServer } from '../test/security-fixtures';
import { card, person, renderSecurity, withCsrfCookie } from '../test/render-security';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { ChangeEmailCard } from './change-email-card';

const CHANGE = 'POST /api/v1/auth/change-email';
const emailCard = () => card('Change email');
const field = (name: string) => within(emailCard()).getByLabelText(name);
const submit = () => within(emailCard()).getByRole('button', { name: 'Change email' });

/** Types the new address and the current password, and sends the form. */
async function sendEmail(user: ReturnType<typeof person>, email: string, password: string) {
  await user.type(field('New email'), email);
  await user.type(field('Current password'), password);
  await user.click(submit());
}

describe('Change email', () => {
  withCsrfCookie();

  it("checks the fields with registration's texts before sending anything", async () => {
    const fetchMock = stubFetch(securityServer().handlers);
    renderSecurity(<ChangeEmailCard currentEmail="grace@example.com" />);
    const user = person();
    await user.type(field('New email'), 'grace-at-example');
    await user.click(submit());
    expect(field('New email')).toHaveAccessibleDescription('Please enter a valid email address.');
    expect(field('Current password')).toHaveAccessibleDescription(MESSAGES.loginPasswordRequired);
    expect(requestsTo(fetchMock, CHANGE)).toHaveLength(0);
  });

  it('changes the address with the server’s message, clears the form and says so', async () => {
    const fetchMock = stubFetch(securityServer().handlers);
    const onChanged = vi.fn();
    renderSecurity(<ChangeEmailCard currentEmail="grace@example.com" onChanged={onChanged} />);
    expect(within(emailCard()).getByText('Your email address is grace@example.com.')).toBeVisible();
    await sendEmail(person(), 'grace@example.org', CURRENT_PASSWORD);
    expect(await within(emailCard()).findByTestId('email-outcome-success')).toHaveTextContent(
      SECURITY_MESSAGES.emailChanged,
    );
    expect(requestsTo(fetchMock, CHANGE)[0]?.body).toEqual({
      email: 'grace@example.org',
      currentPassword: CURRENT_PASSWORD,
    });
    expect(onChanged).toHaveBeenCalledWith('grace@example.org');
    expect(field('New email')).toHaveValue('');
    expect(field('Current password')).toHaveValue('');
  });

  it('shows the button busy while the change is on its way', async () => {
    const server = securityServer();
    let answer: (response: Response) => void = () => undefined;
    stubFetch({
      ...server.handlers,
      [CHANGE]: () => new Promise<Response>((resolve) => (answer = resolve)),
    });
    renderSecurity(<ChangeEmailCard currentEmail="grace@example.com" />);
    await sendEmail(person(), 'grace@example.org', CURRENT_PASSWORD);
    expect(submit()).toHaveAttribute('data-loading', 'true');
    answer(fail(500, 'Server error', 'INTERNAL_ERROR'));
    expect(await within(emailCard()).findByTestId('email-outcome-error')).toHaveTextContent(
      SECURITY_TEXTS.changeEmailFailed,
    );
    expect(submit()).not.toHaveAttribute('data-loading');
  });

  it('puts a wrong current password and a taken address on their fields', async () => {
    stubFetch(securityServer().handlers);
    const onChanged = vi.fn();
    renderSecurity(<ChangeEmailCard currentEmail="grace@example.com" onChanged={onChanged} />);
    const user = person();
    await sendEmail(user, 'grace@example.org', 'not-it');
    expect(
      await within(emailCard()).findByText(SECURITY_MESSAGES.currentPasswordWrong),
    ).toBeVisible();
    expect(field('Current password')).toHaveAccessibleDescription(
      SECURITY_MESSAGES.currentPasswordWrong,
    );

    await user.clear(field('New email'));
    await user.clear(field('Current password'));
    await sendEmail(user, TAKEN_EMAIL, CURRENT_PASSWORD);
    expect(await within(emailCard()).findByText(MESSAGES.registerEmailTaken)).toBeVisible();
    expect(field('New email')).toHaveAccessibleDescription(MESSAGES.registerEmailTaken);
    expect(within(emailCard()).queryByTestId('email-outcome-success')).toBeNull();
    expect(onChanged).not.toHaveBeenCalled();
  });
});

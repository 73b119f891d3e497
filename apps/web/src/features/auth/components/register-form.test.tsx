import { MESSAGES } from '@perch/shared';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, requestsTo, type StubHandler } from '@/test/fetch-stub';
import { makeAuthUser, renderAuthPage, stubSignedOut } from '../test/auth-fixtures';
import { REGISTER_SUCCESS_MESSAGE, RegisterForm } from './register-form';

const user = makeAuthUser({ id: 7, isAdmin: true, lastLoginAt: '2025-01-01T00:00:00.000Z' });

const inviteValid: StubHandler = () => ok({ valid: true, message: MESSAGES.inviteValid });
const registerOk: StubHandler = () =>
  ok({ user, message: 'Registration successful. Welcome to Perch!', csrfToken: 'csrf-new' }, 201);

function renderRegister() {
  return renderAuthPage('/register', <RegisterForm />);
}

interface Fields {
  username?: string;
  email?: string;
  password?: string;
  confirmPassword?: string;
  invitationCode?: string;
}

const LABELS: Record<keyof Fields, string> = {
  username: 'Username',
  email: 'Email',
  password: 'Password',
  confirmPassword: 'Confirm password',
  invitationCode: 'Invitation code',
};

/** Pastes each given value into its field (typing character by character is slow here). */
async function fill(fields: Fields) {
  const person = userEvent.setup({ delay: null });
  for (const [field, label] of Object.entries(LABELS) as [keyof Fields, string][]) {
    const value = fields[field];
    if (!value) continue;
    await person.click(screen.getByLabelText(label));
    await person.paste(value);
  }
  return person;
}

const complete: Required<Fields> = {
  username: 'ada',
  email: 'ada@example.com',
  password: 'Corr3ct-Horse!',
  confirmPassword: 'Corr3ct-Horse!',
  invitationCode: 'PERCH-ABCD-1234',
};

async function submit() {
  await userEvent
    .setup({ delay: null })
    .click(screen.getByRole('button', { name: 'Create account' }));
}

function strengthLevel() {
  return screen.getByTestId('password-strength-level').textContent;
}

describe('RegisterForm', () => {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf-cookie-value; path=/';
  });

  it('asks for every field', async () => {
    const fetchMock = stubSignedOut();
    renderRegister();
    await submit();
    expect(await screen.findByRole('alert')).toHaveTextContent(MESSAGES.registerFillAll);

    await fill({ ...complete, invitationCode: '' });
    await submit();
    expect(await screen.findByRole('alert')).toHaveTextContent(MESSAGES.registerFillAll);
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/verify-invite')).toHaveLength(0);
  });

  it('refuses passwords that do not match', async () => {
    stubSignedOut();
    renderRegister();
    await fill({ ...complete, confirmPassword: 'Corr3ct-Horse?' });
    await submit();
    expect(await screen.findByRole('alert')).toHaveTextContent(MESSAGES.passwordsDoNotMatch);
  });

  it('refuses a password shorter than 8 characters', async () => {
    stubSignedOut();
    renderRegister();
    await fill({ ...complete, password: 'Ab1!', confirmPassword: 'Ab1!' });
    await submit();
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Password must be at least 8 characters long.',
    );
  });

  it('shows a live match indicator under the confirmation', async () => {
    stubSignedOut();
    renderRegister();
    expect(screen.queryByTestId('password-match')).not.toBeInTheDocument();
    const person = await fill({ password: 'Corr3ct-Horse!', confirmPassword: 'Corr3ct' });
    expect(screen.getByTestId('password-match')).toHaveTextContent('Passwords do not match');
    await person.type(screen.getByLabelText('Confirm password'), '-Horse!');
    expect(screen.getByTestId('password-match')).toHaveTextContent('Passwords match');
    expect(screen.getByText('Passwords match')).toBeInTheDocument();
  });

  it('rates the password from Very Weak to Strong with the checklist', async () => {
    stubSignedOut();
    renderRegister();
    const person = userEvent.setup({ delay: null });
    const field = screen.getByLabelText('Password');
    expect(screen.queryByTestId('password-strength-level')).not.toBeInTheDocument();

    const levels: [string, string][] = [
      ['abc', 'Very Weak'],
      ['abcdefgh', 'Weak'],
      ['Abcdefgh', 'Fair'],
      ['Abcdef1!', 'Good'],
      ['Abcdefgh12!@', 'Strong'],
    ];
    for (const [password, level] of levels) {
      await person.clear(field);
      await person.type(field, password);
      expect(strengthLevel()).toBe(level);
    }

    const requirements = screen.getByRole('list', { name: 'Requirements' });
    const items = within(requirements).getAllByRole('listitem');
    expect(items).toHaveLength(5);
    expect(items.map((item) => item.getAttribute('data-met'))).toEqual([
      'true',
      'true',
      'true',
      'true',
      'true',
    ]);

    await person.clear(field);
    await person.type(field, 'abcdefgh');
    const updated = screen.getByRole('list', { name: 'Requirements' });
    expect(within(updated).getByText('An uppercase letter').closest('li')).toHaveAttribute(
      'data-met',
      'false',
    );
  });

  it('rates a common password Very Weak with a warning', async () => {
    stubSignedOut();
    renderRegister();
    await fill({ password: 'Password1' });
    expect(strengthLevel()).toBe('Very Weak');
    expect(screen.getByText(MESSAGES.commonPassword)).toBeInTheDocument();
  });

  it('refuses a common password under its field, before asking the server', async () => {
    const fetchMock = stubSignedOut();
    renderRegister();
    await fill({ ...complete, password: 'Password123', confirmPassword: 'Password123' });
    await submit();
    const field = screen.getByLabelText('Password');
    expect(field).toHaveAccessibleDescription(MESSAGES.passwordTooCommon);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/verify-invite')).toHaveLength(0);

    // A new password takes the message away.
    await userEvent.setup({ delay: null }).type(field, 'x');
    expect(field).not.toHaveAccessibleDescription(MESSAGES.passwordTooCommon);
    expect(screen.queryByText(MESSAGES.passwordTooCommon)).toBeNull();
  });

  it("shows the server's refusal of a common password under the field", async () => {
    stubSignedOut({
      'POST /api/v1/auth/verify-invite': inviteValid,
      'POST /api/v1/auth/register': () =>
        fail(400, MESSAGES.passwordTooCommon, 'PASSWORD_TOO_COMMON'),
    });
    renderRegister();
    await fill({ ...complete, password: 'Letmein-123', confirmPassword: 'Letmein-123' });
    await submit();
    const field = screen.getByLabelText('Password');
    expect(await screen.findByText(MESSAGES.passwordTooCommon)).toBeVisible();
    expect(field).toHaveAccessibleDescription(MESSAGES.passwordTooCommon);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows the message of a failed invitation check and does not register', async () => {
    const fetchMock = stubSignedOut({
      'POST /api/v1/auth/verify-invite': () =>
        ok({ valid: false, message: MESSAGES.registerInviteNotFound }),
    });
    renderRegister();
    await fill(complete);
    await submit();
    expect(await screen.findByRole('alert')).toHaveTextContent(MESSAGES.registerInviteNotFound);
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/verify-invite')[0]?.body).toEqual({
      code: 'PERCH-ABCD-1234',
    });
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/register')).toHaveLength(0);
  });

  it("falls back to 'Invalid invitation code' when the check gives no reason", async () => {
    stubSignedOut({
      'POST /api/v1/auth/verify-invite': () => ok({ valid: false, message: '' }),
    });
    renderRegister();
    await fill(complete);
    await submit();
    expect(await screen.findByRole('alert')).toHaveTextContent(MESSAGES.invalidInvitation);
  });

  it.each([
    ['USERNAME_TAKEN', MESSAGES.registerUsernameTaken, MESSAGES.registerUsernameTaken],
    ['EMAIL_TAKEN', MESSAGES.registerEmailTaken, MESSAGES.registerEmailTaken],
    ['INVITE_USED', MESSAGES.registerInviteUsed, MESSAGES.registerInviteUsed],
    ['CONFLICT', 'Something clashed.', MESSAGES.registerConflict],
  ])('maps a 409 %s to its text', async (code, serverMessage, expected) => {
    stubSignedOut({
      'POST /api/v1/auth/verify-invite': inviteValid,
      'POST /api/v1/auth/register': () => fail(409, serverMessage, code),
    });
    renderRegister();
    await fill(complete);
    await submit();
    expect(await screen.findByRole('alert')).toHaveTextContent(expected);
  });

  it.each([
    [fail(404, 'nope', 'INVITE_NOT_FOUND'), MESSAGES.registerInviteNotFound],
    [fail(400, MESSAGES.registerInvalidData, 'VALIDATION', 'email: Invalid'), 'email: Invalid'],
    [fail(500, 'boom', 'INTERNAL'), MESSAGES.registerServerError],
    [fail(418, 'teapot', 'TEAPOT'), MESSAGES.registerUnexpected],
    // A success answer without the new account: 'Registration failed'.
    [ok({ message: 'Registered' }, 201), 'Registration failed'],
  ])('maps other failures (%#)', async (response, expected) => {
    stubSignedOut({
      'POST /api/v1/auth/verify-invite': inviteValid,
      'POST /api/v1/auth/register': () => response.clone(),
    });
    renderRegister();
    await fill(complete);
    await submit();
    expect(await screen.findByRole('alert')).toHaveTextContent(expected);
  });

  it('registers, shows the success message and goes home after 1.5 s', async () => {
    let answeredAt = 0;
    const fetchMock = stubSignedOut({
      'POST /api/v1/auth/verify-invite': inviteValid,
      'POST /api/v1/auth/register': (request) => {
        answeredAt = Date.now();
        return registerOk(request);
      },
    });
    const { router } = renderRegister();
    await fill(complete);
    await submit();

    expect(await screen.findByText(REGISTER_SUCCESS_MESSAGE)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/register');
    expect(await screen.findByText('Home page', {}, { timeout: 4_000 })).toBeInTheDocument();
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(1_500);

    const [request] = requestsTo(fetchMock, 'POST /api/v1/auth/register');
    expect(request?.headers.get('x-csrf-token')).toBe('csrf-cookie-value');
    expect(request?.body).toEqual({
      username: 'ada',
      email: 'ada@example.com',
      password: 'Corr3ct-Horse!',
      confirmPassword: 'Corr3ct-Horse!',
      invitationCode: 'PERCH-ABCD-1234',
      acceptTerms: true,
      acceptPrivacy: true,
    });
  });
});

import { MESSAGES, SECURITY_MESSAGES } from '@perch/shared';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, requestsTo, type StubHandler } from '@/test/fetch-stub';
import { authCheckQueryKey } from '../api/get-auth-check';
import { makeAuthUser, renderAuthPage, signedInAnswer, stubSignedOut } from '../test/auth-fixtures';
import { LOGIN_SUCCESS_MESSAGE, LoginForm } from './login-form';

const LOGIN = 'POST /api/v1/auth/login';
const SECOND_STEP = 'POST /api/v1/auth/login/2fa';

const user = makeAuthUser({ id: 7 });

const codeAsked: StubHandler = () =>
  ok({ requires2fa: true, message: SECURITY_MESSAGES.twoFactorRequired });

const signedIn: StubHandler = () => signedInAnswer(user, 'csrf-after-second-step');

const person = () => userEvent.setup({ delay: null });

function renderLogin() {
  return renderAuthPage('/login', <LoginForm />);
}

/** Signs in with the password and waits for the second step. */
async function passPasswordStep() {
  const actor = person();
  await actor.type(screen.getByLabelText('Username'), 'ada');
  await actor.type(screen.getByLabelText('Password'), 'Corr3ct-Horse!');
  await actor.click(screen.getByRole('button', { name: 'Sign in' }));
  await screen.findByRole('form', { name: 'Two-factor sign-in' });
  return actor;
}

/** Signs in with the password, then sends a code the second step answers with `refusal`. */
async function sendRefusedCode(refusal: StubHandler) {
  stubSignedOut({ [LOGIN]: codeAsked, [SECOND_STEP]: refusal });
  renderLogin();
  const actor = await passPasswordStep();
  await actor.type(screen.getByLabelText('Authentication code'), '123456');
  await actor.click(screen.getByRole('button', { name: 'Verify' }));
}

describe('LoginForm, second step for two-factor accounts', () => {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf-cookie-value; path=/';
  });

  it('asks for the 6-digit code after the password, then signs in like a normal sign-in', async () => {
    const fetchMock = stubSignedOut({
      [LOGIN]: codeAsked,
      [SECOND_STEP]: signedIn,
    });
    const { router, queryClient } = renderLogin();
    const actor = await passPasswordStep();

    expect(screen.getByText(SECURITY_MESSAGES.twoFactorRequired)).toBeVisible();
    expect(screen.queryByLabelText('Password')).not.toBeInTheDocument();
    expect(queryClient.getQueryData(authCheckQueryKey)).toMatchObject({ authenticated: false });
    const code = screen.getByLabelText('Authentication code');
    expect(code).toHaveAttribute('autocomplete', 'one-time-code');
    expect(code).toHaveAttribute('inputmode', 'numeric');
    await waitFor(() => expect(code).toHaveFocus());

    const verify = screen.getByRole('button', { name: 'Verify' });
    expect(verify).toBeDisabled();
    await actor.type(code, '12 3a45');
    expect(code).toHaveValue('12345');
    expect(verify).toBeDisabled();
    await actor.type(code, '67');
    expect(code).toHaveValue('123456');
    await actor.click(verify);

    expect(await screen.findByText(LOGIN_SUCCESS_MESSAGE)).toBeInTheDocument();
    expect(await screen.findByText('Home page', {}, { timeout: 2_000 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(queryClient.getQueryData(authCheckQueryKey)).toMatchObject({
      authenticated: true,
      userId: 7,
      username: 'ada',
      csrfToken: 'csrf-after-second-step',
    });
    const [request] = requestsTo(fetchMock, SECOND_STEP);
    expect(request?.body).toEqual({ code: '123456' });
    expect(request?.headers.get('x-csrf-token')).toBe('csrf-cookie-value');
  });

  it('shows the server text for a wrong code, clears the field and takes another', async () => {
    let attempts = 0;
    stubSignedOut({
      [LOGIN]: codeAsked,
      [SECOND_STEP]: (request) => {
        attempts += 1;
        return attempts === 1
          ? fail(401, SECURITY_MESSAGES.twoFactorCodeInvalid, 'TWO_FACTOR_INVALID')
          : signedIn(request);
      },
    });
    renderLogin();
    const actor = await passPasswordStep();
    await actor.type(screen.getByLabelText('Authentication code'), '000000');
    await actor.click(screen.getByRole('button', { name: 'Verify' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(
      SECURITY_MESSAGES.twoFactorCodeInvalid,
    );
    const code = screen.getByLabelText('Authentication code');
    expect(code).toHaveValue('');
    expect(code).toHaveFocus();

    await actor.type(code, '654321');
    await actor.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(LOGIN_SUCCESS_MESSAGE)).toBeInTheDocument();
  });

  it('goes back to the password step with the server text when the sign-in took too long', async () => {
    await sendRefusedCode(() =>
      fail(401, SECURITY_MESSAGES.twoFactorLoginExpired, 'TWO_FACTOR_EXPIRED'),
    );

    expect(await screen.findByRole('alert')).toHaveTextContent(
      SECURITY_MESSAGES.twoFactorLoginExpired,
    );
    expect(screen.queryByLabelText('Authentication code')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Username')).toHaveValue('ada');
    const password = screen.getByLabelText('Password');
    expect(password).toHaveValue('');
    expect(password).toHaveFocus();
    expect(screen.queryByText(MESSAGES.loginPasswordRequired)).not.toBeInTheDocument();
  });

  it('takes a recovery code instead, and switches back to the authenticator code', async () => {
    const fetchMock = stubSignedOut({
      [LOGIN]: codeAsked,
      [SECOND_STEP]: signedIn,
    });
    renderLogin();
    const actor = await passPasswordStep();

    await actor.type(screen.getByLabelText('Authentication code'), '12');
    await actor.click(screen.getByRole('button', { name: 'Use a recovery code' }));
    expect(screen.queryByLabelText('Authentication code')).not.toBeInTheDocument();
    const recovery = screen.getByLabelText('Recovery code');
    expect(recovery).toHaveValue('');
    expect(recovery).toHaveFocus();
    expect(recovery).toHaveAttribute('autocomplete', 'off');

    await actor.click(screen.getByRole('button', { name: 'Use the authenticator app' }));
    expect(screen.getByLabelText('Authentication code')).toHaveValue('');
    await actor.click(screen.getByRole('button', { name: 'Use a recovery code' }));

    const verify = screen.getByRole('button', { name: 'Verify' });
    expect(verify).toBeDisabled();
    await actor.type(screen.getByLabelText('Recovery code'), '  7K3M-Q9TX-4WZB-8RTA ');
    await actor.click(verify);
    expect(await screen.findByText(LOGIN_SUCCESS_MESSAGE)).toBeInTheDocument();
    expect(requestsTo(fetchMock, SECOND_STEP)[0]?.body).toEqual({ code: '7K3M-Q9TX-4WZB-8RTA' });
  });

  it('goes back to the first step with Back, keeping the username', async () => {
    const fetchMock = stubSignedOut({
      [LOGIN]: codeAsked,
    });
    renderLogin();
    const actor = await passPasswordStep();
    await actor.click(screen.getByRole('button', { name: 'Back' }));

    expect(screen.getByLabelText('Username')).toHaveValue('ada');
    expect(screen.getByLabelText('Password')).toHaveValue('');
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeDisabled();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(requestsTo(fetchMock, SECOND_STEP)).toHaveLength(0);

    await actor.type(screen.getByLabelText('Password'), 'Corr3ct-Horse!');
    await actor.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByLabelText('Authentication code')).toBeInTheDocument();
    expect(requestsTo(fetchMock, LOGIN)[1]?.body).toMatchObject({ username: 'ada' });
  });

  it('shows the throttling text when the server refuses more attempts', async () => {
    await sendRefusedCode(() => fail(429, MESSAGES.loginTooManyAttempts, 'LOGIN_LOCKED'));
    expect(await screen.findByRole('alert')).toHaveTextContent(MESSAGES.loginTooManyAttempts);
    expect(screen.getByLabelText('Authentication code')).toBeInTheDocument();
  });
});

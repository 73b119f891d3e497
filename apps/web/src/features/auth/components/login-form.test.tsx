import { MESSAGES } from '@perch/shared';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fail, ok, requestsTo, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { makeAuthUser, renderAuthPage, signedInAnswer, stubSignedOut } from '../test/auth-fixtures';
import { LOGIN_SUCCESS_MESSAGE, LoginForm } from './login-form';

const user = makeAuthUser({ id: 1 });

const loginOk: StubHandler = () => signedInAnswer(user, 'csrf-after-login');

function renderLogin() {
  return renderAuthPage('/login', <LoginForm />);
}

async function fillAndSubmit(username = 'ada', password = 'Corr3ct-Horse!') {
  const person = userEvent.setup({ delay: null });
  await person.type(screen.getByLabelText('Username'), username);
  await person.type(screen.getByLabelText('Password'), password);
  await person.click(screen.getByRole('button', { name: 'Sign in' }));
  return person;
}

describe('LoginForm', () => {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf-cookie-value; path=/';
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps Sign in disabled until both username and password are filled', async () => {
    stubSignedOut();
    renderLogin();
    const person = userEvent.setup({ delay: null });
    const submit = screen.getByRole('button', { name: 'Sign in' });
    expect(submit).toBeDisabled();
    await person.type(screen.getByLabelText('Username'), 'ada');
    expect(submit).toBeDisabled();
    await person.type(screen.getByLabelText('Password'), 'secret');
    expect(submit).toBeEnabled();
    await person.clear(screen.getByLabelText('Username'));
    expect(submit).toBeDisabled();
  });

  it('labels the fields so that Password is unambiguous and Remember me is a checkbox', () => {
    stubSignedOut();
    renderLogin();
    expect(screen.getAllByLabelText(/password/i)).toHaveLength(1);
    expect(screen.getByRole('checkbox', { name: 'Remember me' })).not.toBeChecked();
  });

  it('shows the validation texts when a field is left empty', async () => {
    stubSignedOut();
    renderLogin();
    const person = userEvent.setup({ delay: null });
    await person.click(screen.getByLabelText('Username'));
    await person.click(screen.getByLabelText('Password'));
    expect(await screen.findByText(MESSAGES.loginUsernameRequired)).toBeInTheDocument();
    await person.click(screen.getByLabelText('Username'));
    expect(await screen.findByText(MESSAGES.loginPasswordRequired)).toBeInTheDocument();
    await person.type(screen.getByLabelText('Username'), '   ');
    expect(screen.getByText(MESSAGES.loginUsernameRequired)).toBeInTheDocument();
  });

  it.each([
    [
      401,
      fail(401, 'Invalid username or password.', 'INVALID_CREDENTIALS'),
      MESSAGES.loginWrongCredentials,
    ],
    [429, fail(429, 'Slow down', 'RATE_LIMITED'), MESSAGES.loginTooManyAttempts],
    [500, fail(500, 'boom', 'INTERNAL'), MESSAGES.loginServerError],
    [503, fail(503, 'down', 'UNAVAILABLE'), MESSAGES.unexpectedError],
    [503, fail(503, MESSAGES.serverBusy, 'SERVER_BUSY'), MESSAGES.serverBusy],
  ])('shows the spec text for a %i', async (_status, response, expected) => {
    stubSignedOut({
      'POST /api/v1/auth/login': () => response.clone(),
    });
    renderLogin();
    await fillAndSubmit();
    expect(await screen.findByRole('alert')).toHaveTextContent(expected);
  });

  it('shows the server details for a 400, else the generic invalid-data text', async () => {
    stubSignedOut({
      'POST /api/v1/auth/login': () =>
        fail(400, MESSAGES.loginInvalidData, 'VALIDATION_ERROR', 'username: Too long'),
    });
    renderLogin();
    await fillAndSubmit();
    expect(await screen.findByRole('alert')).toHaveTextContent('username: Too long');
  });

  it("says 'Login failed' when a success answer carries no signed-in account", async () => {
    stubSignedOut({ 'POST /api/v1/auth/login': () => ok({ message: 'Welcome' }) });
    renderLogin();
    await fillAndSubmit();
    expect(await screen.findByRole('alert')).toHaveTextContent('Login failed');
    expect(screen.queryByText(LOGIN_SUCCESS_MESSAGE)).toBeNull();
  });

  it('shows the network text when the server cannot be reached', async () => {
    stubSignedOut({
      'POST /api/v1/auth/login': () => Promise.reject(new TypeError('Failed to fetch')),
    });
    renderLogin();
    await fillAndSubmit();
    expect(await screen.findByRole('alert')).toHaveTextContent(MESSAGES.networkError);
  });

  it('clears the error banner after 10 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    stubSignedOut({
      'POST /api/v1/auth/login': () => fail(401, 'Invalid', 'INVALID_CREDENTIALS'),
    });
    renderLogin();
    const person = userEvent.setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) });
    await person.type(screen.getByLabelText('Username'), 'ada');
    await person.type(screen.getByLabelText('Password'), 'wrong');
    await person.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText(MESSAGES.loginWrongCredentials)).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(9_000);
    });
    expect(screen.getByText(MESSAGES.loginWrongCredentials)).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(1_100);
    });
    expect(screen.queryByText(MESSAGES.loginWrongCredentials)).not.toBeInTheDocument();
  });

  it('signs in, shows the success message and goes home after 300 ms', async () => {
    let answeredAt = 0;
    const fetchMock = stubSignedOut({
      'POST /api/v1/auth/login': (request) => {
        answeredAt = Date.now();
        return loginOk(request);
      },
    });
    const longAgent = 'A'.repeat(180);
    vi.spyOn(window.navigator, 'userAgent', 'get').mockReturnValue(longAgent);
    const { router } = renderLogin();

    const person = userEvent.setup({ delay: null });
    await person.type(screen.getByLabelText('Username'), ' ada ');
    await person.type(screen.getByLabelText('Password'), 'Corr3ct-Horse!');
    await person.click(screen.getByRole('checkbox', { name: 'Remember me' }));
    await person.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByText(LOGIN_SUCCESS_MESSAGE)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(screen.queryByText('Home page')).not.toBeInTheDocument();

    expect(await screen.findByText('Home page', {}, { timeout: 2_000 })).toBeInTheDocument();
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(300);
    expect(router.state.location.pathname).toBe('/');

    const [request] = requestsTo(fetchMock, 'POST /api/v1/auth/login');
    expect(request?.headers.get('x-csrf-token')).toBe('csrf-cookie-value');
    expect(request?.headers.get('x-requested-with')).toBe('XMLHttpRequest');
    expect(request?.body).toMatchObject({
      username: 'ada',
      password: 'Corr3ct-Horse!',
      rememberMe: true,
      deviceInfo: { userAgent: 'A'.repeat(100) },
    });
  });

  it('sends a signed-in visitor straight home', async () => {
    stubFetch({
      'GET /api/v1/auth/check': () =>
        ok({ authenticated: true, userId: 1, username: 'ada', email: 'a@b.c', csrfToken: 'x' }),
    });
    const { router } = renderLogin();
    expect(await screen.findByText('Home page')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });
});

import {
  ADMIN_MESSAGES,
  CHALLENGE_POLL_MS,
  CHALLENGE_REFETCH_AFTER_SUBMIT_MS,
  X_WEB_MESSAGES,
  type ChallengeStatus,
} from '@perch/shared';
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fail, jsonResponse, ok, requestsTo, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { ChallengePanel } from './challenge-panel';
import { setUpAdminTests } from '../test/admin-test-setup';

const STATUS_PATH = 'GET /api/v1/admin/twitter-challenge-status';
const SUBMIT_PATH = 'POST /api/v1/admin/submit-twitter-challenge-code';

const idle: ChallengeStatus = {
  status: 'IDLE',
  challenge_type: null,
  challenge_details: null,
  last_challenge_at: null,
};
const awaiting: ChallengeStatus = {
  status: 'AWAITING_INPUT',
  challenge_type: 'email_code',
  challenge_details: 'Enter the code X sent to c****@example.com.',
  last_challenge_at: '2025-03-10T12:00:00.000Z',
};

/** The server's answer to a submit: the new status, and its message in the envelope. */
function submitted(status: ChallengeStatus, message?: string): Response {
  return jsonResponse(200, { success: true, data: status, ...(message ? { message } : {}) });
}

function serve(handlers: Record<string, StubHandler>) {
  return stubFetch(handlers);
}

function renderPanel() {
  return renderRoute('/settings', <ChallengePanel />);
}

const person = () => userEvent.setup({ delay: null });
const timedPerson = () => userEvent.setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) });

describe('ChallengePanel', () => {
  setUpAdminTests();

  it('is calm when no verification is needed, and polls every 30 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const fetchMock = serve({ [STATUS_PATH]: () => ok(idle) });
    renderPanel();
    expect(await screen.findByText('No verification needed')).toBeVisible();
    expect(screen.getByTestId('challenge-state')).toHaveTextContent('No code needed');
    expect(screen.queryByLabelText('Verification code')).toBeNull();
    expect(requestsTo(fetchMock, STATUS_PATH)).toHaveLength(1);

    await act(() => vi.advanceTimersByTimeAsync(CHALLENGE_POLL_MS - 200));
    expect(requestsTo(fetchMock, STATUS_PATH)).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(400));
    expect(requestsTo(fetchMock, STATUS_PATH)).toHaveLength(2);
    expect(CHALLENGE_POLL_MS).toBe(30_000);
  });

  it('stands out in yellow with the details while a code is awaited; a blank code cannot be sent', async () => {
    const fetchMock = serve({ [STATUS_PATH]: () => ok(awaiting) });
    renderPanel();
    const alert = await screen.findByTestId('challenge-awaiting');
    expect(within(alert).getByText('Verification code needed')).toBeVisible();
    expect(within(alert).getByText(awaiting.challenge_details ?? '')).toBeVisible();
    expect(within(alert).getByText('email_code')).toBeVisible();
    expect(within(alert).getByText(ADMIN_MESSAGES.collectionPausedByChallenge)).toBeVisible();
    expect(screen.getByTestId('challenge-state')).toHaveTextContent('Code needed');

    const submit = within(alert).getByRole('button', { name: 'Submit code' });
    expect(submit).toBeDisabled();
    const user = person();
    await user.type(within(alert).getByLabelText('Verification code'), '   ');
    expect(submit).toBeDisabled();
    await user.keyboard('{Enter}');
    await user.type(within(alert).getByLabelText('Verification code'), '1');
    expect(submit).toBeEnabled();
    expect(requestsTo(fetchMock, SUBMIT_PATH)).toHaveLength(0);
  });

  it("submits the code, shows 'Checking...' and fetches the status again 5 s later", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let current: ChallengeStatus = awaiting;
    const fetchMock = serve({
      [STATUS_PATH]: () => ok(current),
      [SUBMIT_PATH]: () => {
        current = { ...awaiting, status: 'CODE_SUBMITTED', challenge_details: null };
        return submitted(current, 'Code received: checking it now.');
      },
    });
    renderPanel();
    const alert = await screen.findByTestId('challenge-awaiting');
    const user = timedPerson();
    await user.type(within(alert).getByLabelText('Verification code'), ' 246810 ');
    await user.click(within(alert).getByRole('button', { name: 'Submit code' }));

    const checking = await screen.findByTestId('challenge-checking');
    expect(within(checking).getByText('Checking...')).toBeVisible();
    expect(within(checking).getByText('Code received: checking it now.')).toBeVisible();
    expect(screen.getByTestId('challenge-state')).toHaveTextContent('Code submitted');
    expect(requestsTo(fetchMock, SUBMIT_PATH)[0]?.body).toEqual({ verification_code: '246810' });
    const fetchesAtSubmit = requestsTo(fetchMock, STATUS_PATH).length;

    current = {
      ...idle,
      challenge_details: ADMIN_MESSAGES.codeAccepted,
      last_challenge_at: awaiting.last_challenge_at,
    };
    await act(() => vi.advanceTimersByTimeAsync(CHALLENGE_REFETCH_AFTER_SUBMIT_MS - 200));
    expect(requestsTo(fetchMock, STATUS_PATH)).toHaveLength(fetchesAtSubmit);
    await act(() => vi.advanceTimersByTimeAsync(400));
    expect(requestsTo(fetchMock, STATUS_PATH)).toHaveLength(fetchesAtSubmit + 1);
    expect(await screen.findByText('No verification needed')).toBeVisible();
    expect(screen.getByText(ADMIN_MESSAGES.codeAccepted)).toBeVisible();
    expect(CHALLENGE_REFETCH_AFTER_SUBMIT_MS).toBe(5_000);
  });

  it('asks again when the code was not accepted', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let current: ChallengeStatus = awaiting;
    serve({
      [STATUS_PATH]: () => ok(current),
      [SUBMIT_PATH]: () => {
        current = { ...awaiting, status: 'CODE_SUBMITTED', challenge_details: null };
        return submitted(current);
      },
    });
    renderPanel();
    const user = timedPerson();
    await user.type(await screen.findByLabelText('Verification code'), '111111');
    await user.click(screen.getByRole('button', { name: 'Submit code' }));
    expect(await screen.findByText('Checking...')).toBeVisible();
    expect(screen.getByText(ADMIN_MESSAGES.codeSubmitted)).toBeVisible();

    current = { ...awaiting, challenge_details: ADMIN_MESSAGES.codeRejected };
    await act(() => vi.advanceTimersByTimeAsync(CHALLENGE_REFETCH_AFTER_SUBMIT_MS + 100));
    const alert = await screen.findByTestId('challenge-awaiting');
    expect(within(alert).getByText(ADMIN_MESSAGES.codeRejected)).toBeVisible();
    expect(within(alert).getByLabelText('Verification code')).toHaveValue('');
  });

  it("shows the server's reason when a code is refused, and the spec's text otherwise", async () => {
    let answer = () => fail(400, ADMIN_MESSAGES.noChallengePending, 'NO_CHALLENGE');
    serve({ [STATUS_PATH]: () => ok(awaiting), [SUBMIT_PATH]: () => answer() });
    renderPanel();
    const user = person();
    const input = await screen.findByLabelText('Verification code');
    await user.type(input, '123456');
    await user.click(screen.getByRole('button', { name: 'Submit code' }));
    const error = await screen.findByTestId('challenge-submit-error');
    expect(error).toHaveTextContent(ADMIN_MESSAGES.submitCodeFailed);
    expect(error).toHaveTextContent(ADMIN_MESSAGES.noChallengePending);
    expect(input).toHaveValue('123456');

    answer = () => new Response('', { status: 502 });
    await user.click(screen.getByRole('button', { name: 'Submit code' }));
    await expect
      .poll(() => screen.queryByTestId('challenge-submit-error')?.textContent)
      .toBe(ADMIN_MESSAGES.submitCodeFailed);
    expect(ADMIN_MESSAGES.submitCodeFailed).toBe('Failed to submit verification code.');
  });

  it("says 'Failed to fetch Twitter challenge status.' when the status cannot be read", async () => {
    let answer = () => new Response('', { status: 500 });
    serve({ [STATUS_PATH]: () => answer() });
    renderPanel();
    const error = await screen.findByTestId('challenge-fetch-error');
    expect(error).toHaveTextContent('Failed to fetch Twitter challenge status.');

    answer = () => fail(403, ADMIN_MESSAGES.superAdminRequired, 'FORBIDDEN');
    await person().click(within(error).getByRole('button'));
    expect(await screen.findByText(ADMIN_MESSAGES.superAdminRequired)).toBeVisible();
  });

  it("shows 'Checking...' while the server checks a code submitted elsewhere", async () => {
    serve({ [STATUS_PATH]: () => ok({ ...awaiting, status: 'CODE_SUBMITTED' }) });
    renderPanel();
    expect(await screen.findByText('Checking...')).toBeVisible();
    expect(screen.queryByLabelText('Verification code')).toBeNull();
  });

  it("an x-web account: names it and its step, sends the code for it, and shows X's answer at once", async () => {
    const waiting: ChallengeStatus = {
      status: 'AWAITING_INPUT',
      challenge_type: 'email_code',
      challenge_details: X_WEB_MESSAGES.emailCodeDetails('orbit_reader', 'Check your email'),
      last_challenge_at: '2025-03-10T12:00:00.000Z',
      account: 'orbit_reader',
      account_id: 7,
      step: 'LoginAcid',
      collection_paused: false,
    };
    let current: ChallengeStatus = waiting;
    let answer = (): Response =>
      fail(
        422,
        X_WEB_MESSAGES.codeRejected('orbit_reader', 'Incorrect. Please try again.'),
        'CODE_REJECTED',
      );
    const fetchMock = serve({ [STATUS_PATH]: () => ok(current), [SUBMIT_PATH]: () => answer() });
    renderPanel();
    const alert = await screen.findByTestId('challenge-awaiting');
    expect(within(alert).getByTestId('challenge-account')).toHaveTextContent(
      '@orbit_reader, sign-in step LoginAcid',
    );
    expect(within(alert).getByTestId('challenge-since')).toHaveTextContent(/^Waiting since /);
    expect(within(alert).getByText(ADMIN_MESSAGES.collectionGoesOn)).toBeVisible();

    const user = person();
    const input = within(alert).getByLabelText('Verification code');
    await user.type(input, '000000');
    await user.click(within(alert).getByRole('button', { name: 'Submit code' }));
    const error = await screen.findByTestId('challenge-submit-error');
    expect(error).toHaveTextContent(
      X_WEB_MESSAGES.codeRejected('orbit_reader', 'Incorrect. Please try again.'),
    );
    expect(requestsTo(fetchMock, SUBMIT_PATH)[0]?.body).toEqual({
      verification_code: '000000',
      account_id: 7,
    });
    expect(screen.getByTestId('challenge-awaiting')).toBeVisible();

    answer = () => {
      current = idle;
      return submitted(idle, X_WEB_MESSAGES.codeAccepted('orbit_reader'));
    };
    await user.clear(input);
    await user.type(input, '424242');
    await user.click(screen.getByRole('button', { name: 'Submit code' }));
    expect(await screen.findByText('No verification needed')).toBeVisible();
    expect(screen.getByText(X_WEB_MESSAGES.codeAccepted('orbit_reader'))).toBeVisible();
    expect(screen.queryByTestId('challenge-checking')).toBeNull();
  });
});

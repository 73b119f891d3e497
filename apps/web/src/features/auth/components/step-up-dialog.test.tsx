import { Button, Text } from '@mantine/core';
import { REAUTH_REQUIRED_CODE, SECURITY_MESSAGES, STEP_UP_MESSAGES } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { apiClient, ApiError } from '@/lib/api-client';
import { fail, ok, requestsTo, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { STEP_UP_TEXTS, StepUpDialog } from './step-up-dialog';

const PASSWORD = 'Sup3r-secret!';
const CODE = '123456';
const person = () => userEvent.setup({ delay: null });

/** A screen with one sensitive change (connecting Discord) and the dialog, as Settings has. */
function SensitiveChange() {
  const [outcome, setOutcome] = useState('');
  const handleSave = () => {
    apiClient.post('/settings', { discord_user_id: '82198898841029460' }).then(
      () => setOutcome('Saved'),
      (error: unknown) => setOutcome(error instanceof ApiError ? error.message : 'Failed'),
    );
  };
  return (
    <>
      <Button onClick={handleSave}>Save</Button>
      <Text data-testid="outcome">{outcome}</Text>
      <StepUpDialog />
    </>
  );
}

/**
 * The server: POST /settings wants a proof given since the last refusal; the password and the
 * code below are right, anything else is refused as the server refuses it.
 */
function stepUpServer() {
  let confirmed = false;
  const handlers: Record<string, StubHandler> = {
    'POST /api/v1/settings': () =>
      confirmed ? ok({ settings: {} }) : fail(403, STEP_UP_MESSAGES.required, REAUTH_REQUIRED_CODE),
    'POST /api/v1/auth/reauthenticate': ({ body }) => {
      const proof = body as { password?: string; code?: string };
      if (proof.password === PASSWORD || proof.code === CODE) {
        confirmed = true;
        return ok({
          authenticatedAt: '2026-03-01T12:00:00.000Z',
          validUntil: '2026-03-01T12:05:00.000Z',
        });
      }
      return proof.code
        ? fail(400, SECURITY_MESSAGES.twoFactorCodeInvalid, 'TWO_FACTOR_CODE_INVALID')
        : fail(400, STEP_UP_MESSAGES.passwordWrong, 'REAUTH_PASSWORD_WRONG');
    },
  };
  return stubFetch(handlers);
}

const dialog = () => screen.findByRole('dialog', { name: STEP_UP_TEXTS.title });
const outcome = () => screen.getByTestId('outcome');

/** Saves the sensitive change against the server and waits for the dialog to ask for proof. */
async function saveAndGetAsked() {
  const fetchMock = stepUpServer();
  renderRoute('/settings', <SensitiveChange />);
  const user = person();
  await user.click(screen.getByRole('button', { name: 'Save' }));
  return { fetchMock, user, asked: await dialog() };
}

describe('StepUpDialog', () => {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf; path=/';
  });

  it('asks for the password when a change is refused, then sends the change again', async () => {
    const { fetchMock, user, asked } = await saveAndGetAsked();

    expect(within(asked).getByText(STEP_UP_MESSAGES.required)).toBeVisible();
    const password = within(asked).getByLabelText(STEP_UP_TEXTS.passwordLabel);
    const confirm = within(asked).getByRole('button', { name: STEP_UP_TEXTS.confirm });

    // Nothing typed: the request's own rule says what is missing; nothing is sent.
    await user.click(confirm);
    expect(within(asked).getByText(STEP_UP_MESSAGES.proofRequired)).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/reauthenticate')).toHaveLength(0);

    await user.type(password, 'not-it');
    await user.click(confirm);
    expect(await within(asked).findByText(STEP_UP_MESSAGES.passwordWrong)).toBeVisible();
    expect(outcome()).toHaveTextContent('');

    await user.clear(password);
    await user.type(password, PASSWORD);
    await user.click(confirm);
    await waitFor(() => expect(outcome()).toHaveTextContent('Saved'));
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: STEP_UP_TEXTS.title })).toBeNull(),
    );
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/reauthenticate').map((r) => r.body)).toEqual([
      { password: 'not-it' },
      { password: PASSWORD },
    ]);
    // The change went twice: refused, then once the person had confirmed.
    expect(requestsTo(fetchMock, 'POST /api/v1/settings')).toHaveLength(2);
  });

  it('takes a two-factor code instead of the password', async () => {
    const { fetchMock, user, asked } = await saveAndGetAsked();
    await user.click(within(asked).getByRole('button', { name: STEP_UP_TEXTS.useCode }));
    const code = within(asked).getByRole('textbox', { name: STEP_UP_TEXTS.codeLabel });

    await user.type(code, '000000');
    await user.click(within(asked).getByRole('button', { name: STEP_UP_TEXTS.confirm }));
    expect(await within(asked).findByText(SECURITY_MESSAGES.twoFactorCodeInvalid)).toBeVisible();

    await user.clear(code);
    await user.type(code, CODE);
    await user.click(within(asked).getByRole('button', { name: STEP_UP_TEXTS.confirm }));
    await waitFor(() => expect(outcome()).toHaveTextContent('Saved'));
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/reauthenticate').at(-1)?.body).toEqual({
      code: CODE,
    });
  });

  it('lets the change fail with the server’s words when the person cancels', async () => {
    const { fetchMock, user, asked } = await saveAndGetAsked();
    await user.click(within(asked).getByRole('button', { name: 'Cancel' }));

    await waitFor(() => expect(outcome()).toHaveTextContent(STEP_UP_MESSAGES.required));
    expect(requestsTo(fetchMock, 'POST /api/v1/settings')).toHaveLength(1);
    expect(requestsTo(fetchMock, 'POST /api/v1/auth/reauthenticate')).toHaveLength(0);
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: STEP_UP_TEXTS.title })).toBeNull(),
    );
  });
});

import { MESSAGES } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  INVALID_RESPONSE_CODE,
  NETWORK_ERROR_CODE,
  TIMEOUT_CODE,
} from '@/lib/api-client';
import { inviteErrorMessage, loginErrorMessage, registerErrorMessage } from './auth-errors';

const apiError = (status: number, code = 'X', serverMessage?: string, details?: string) =>
  new ApiError(
    status,
    serverMessage ?? `Request failed with status ${status}`,
    code,
    details,
    serverMessage,
  );

describe('loginErrorMessage', () => {
  it('uses the server message for a 400 without details, else the generic text', () => {
    expect(loginErrorMessage(apiError(400, 'BAD', 'Bad input'))).toBe('Bad input');
    expect(loginErrorMessage(apiError(400))).toBe(MESSAGES.loginInvalidData);
  });

  it('treats timeouts and offline alike, and anything unknown as unexpected', () => {
    expect(loginErrorMessage(new ApiError(0, 'x', TIMEOUT_CODE))).toBe(MESSAGES.networkError);
    expect(loginErrorMessage(new ApiError(0, 'x', NETWORK_ERROR_CODE))).toBe(MESSAGES.networkError);
    expect(loginErrorMessage(new Error('weird'))).toBe(MESSAGES.unexpectedError);
  });
});

describe('an answer of success that is not an account', () => {
  it("is 'Login failed' or 'Registration failed', whatever its status", () => {
    const invalid = new ApiError(200, 'Invalid response format', INVALID_RESPONSE_CODE);
    expect(loginErrorMessage(invalid)).toBe('Login failed');
    expect(registerErrorMessage(invalid)).toBe('Registration failed');
  });
});

describe('registerErrorMessage', () => {
  it('picks the 409 text from the code or the words of the message', () => {
    expect(registerErrorMessage(apiError(409, 'CONFLICT', 'Username exists'))).toBe(
      MESSAGES.registerUsernameTaken,
    );
    expect(registerErrorMessage(apiError(409, 'CONFLICT', 'Email exists'))).toBe(
      MESSAGES.registerEmailTaken,
    );
    expect(registerErrorMessage(apiError(409, 'CONFLICT', 'That code is spent'))).toBe(
      MESSAGES.registerInviteUsed,
    );
    expect(
      registerErrorMessage(apiError(409, 'INVITE_EXPIRED', MESSAGES.registerInviteExpired)),
    ).toBe(MESSAGES.registerInviteExpired);
    expect(registerErrorMessage(apiError(409))).toBe(MESSAGES.registerConflict);
  });

  it('uses 400 details, then the message, then the generic text', () => {
    expect(registerErrorMessage(apiError(400, 'V', 'Msg', 'email: bad'))).toBe('email: bad');
    expect(registerErrorMessage(apiError(400, 'V', 'Msg'))).toBe('Msg');
    expect(registerErrorMessage(apiError(400))).toBe(MESSAGES.registerInvalidData);
    expect(registerErrorMessage(new Error('x'))).toBe(MESSAGES.registerUnexpected);
  });
});

describe('inviteErrorMessage', () => {
  it("uses the server message, else 'Invalid invitation code'", () => {
    expect(inviteErrorMessage(apiError(400, 'V', MESSAGES.invalidInvitation))).toBe(
      MESSAGES.invalidInvitation,
    );
    expect(inviteErrorMessage(apiError(502))).toBe(MESSAGES.invalidInvitation);
    expect(inviteErrorMessage(new ApiError(0, 'x', NETWORK_ERROR_CODE))).toBe(
      MESSAGES.networkError,
    );
  });
});

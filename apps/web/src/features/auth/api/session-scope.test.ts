import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { ApiError, CIRCUIT_OPEN_CODE, NETWORK_ERROR_CODE } from '@/lib/api-client';
import { authCheckQueryKey, signedOutCheck } from './get-auth-check';
import { isUnjudgedCheckFailure, markSignedOut, scopeQueriesToAccount } from './session-scope';

const HANDLES = ['handles', 'list'];
const SETTINGS = ['settings', 'current'];

function signedInAs(userId: number) {
  return { authenticated: true, userId, username: `user${userId}`, csrfToken: 'csrf' };
}

function setUp() {
  const queryClient = new QueryClient();
  const stop = scopeQueriesToAccount(queryClient);
  const cached = () =>
    queryClient
      .getQueryCache()
      .getAll()
      .map((query) => query.queryKey.join('/'))
      .sort();
  const fill = () => {
    queryClient.setQueryData(HANDLES, [{ id: 1, handle: 'nasa' }]);
    queryClient.setQueryData(SETTINGS, { botRunning: true });
  };
  return { queryClient, stop, cached, fill };
}

describe('scopeQueriesToAccount', () => {
  it('keeps what the first sign-in loads, and drops all of it when the session ends', () => {
    const { queryClient, cached, fill } = setUp();
    queryClient.setQueryData(authCheckQueryKey, signedInAs(3));
    fill();
    expect(cached()).toEqual(['auth/check', 'handles/list', 'settings/current']);
    // A 401 or a logout: the check turns signed out.
    queryClient.setQueryData(authCheckQueryKey, signedOutCheck('csrf'));
    expect(cached()).toEqual(['auth/check']);
  });

  it('drops the previous account’s queries when another account signs in', () => {
    const { queryClient, cached, fill } = setUp();
    queryClient.setQueryData(authCheckQueryKey, signedInAs(3));
    fill();
    queryClient.setQueryData(authCheckQueryKey, signedInAs(4));
    expect(cached()).toEqual(['auth/check']);
    expect(queryClient.getQueryData(HANDLES)).toBeUndefined();
  });

  it('keeps everything when the same account is confirmed again', () => {
    const { queryClient, cached, fill } = setUp();
    queryClient.setQueryData(authCheckQueryKey, signedInAs(3));
    fill();
    queryClient.setQueryData(authCheckQueryKey, { ...signedInAs(3), csrfToken: 'new' });
    expect(cached()).toEqual(['auth/check', 'handles/list', 'settings/current']);
  });

  it('stops watching when asked', () => {
    const { queryClient, cached, fill, stop } = setUp();
    queryClient.setQueryData(authCheckQueryKey, signedInAs(3));
    fill();
    stop();
    queryClient.setQueryData(authCheckQueryKey, signedInAs(4));
    expect(cached()).toEqual(['auth/check', 'handles/list', 'settings/current']);
  });
});

describe('markSignedOut', () => {
  it('says nobody is signed in, keeps the CSRF token and drops the account’s queries', () => {
    const { queryClient, cached, fill } = setUp();
    queryClient.setQueryData(authCheckQueryKey, signedInAs(3));
    fill();
    markSignedOut(queryClient);
    expect(queryClient.getQueryData(authCheckQueryKey)).toEqual(signedOutCheck('csrf'));
    expect(cached()).toEqual(['auth/check']);
  });

  it('changes nothing more when nobody was signed in', () => {
    const queryClient = new QueryClient();
    markSignedOut(queryClient);
    markSignedOut(queryClient);
    expect(queryClient.getQueryData(authCheckQueryKey)).toEqual(signedOutCheck());
  });
});

describe('isUnjudgedCheckFailure', () => {
  it('is true when the server did not judge the session', () => {
    expect(isUnjudgedCheckFailure(new ApiError(0, 'offline', NETWORK_ERROR_CODE))).toBe(true);
    expect(isUnjudgedCheckFailure(new ApiError(0, 'paused', CIRCUIT_OPEN_CODE))).toBe(true);
    expect(isUnjudgedCheckFailure(new ApiError(502, 'Bad gateway', 'HTTP_502'))).toBe(true);
    expect(isUnjudgedCheckFailure(new ApiError(429, 'Slow down', 'RATE_LIMITED'))).toBe(true);
  });

  it('is false for an answer about the session', () => {
    expect(isUnjudgedCheckFailure(new ApiError(403, 'Forbidden', 'FORBIDDEN'))).toBe(false);
    expect(isUnjudgedCheckFailure(new ApiError(400, 'Bad', 'VALIDATION_ERROR'))).toBe(false);
  });
});

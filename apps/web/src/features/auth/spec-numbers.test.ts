/** "Max retries: auth 2" (docs/spec-notes.md, Resilience) as the session check applies it. */
import { describe, expect, it, vi } from 'vitest';
import { ApiError, NETWORK_ERROR_CODE } from '@/lib/api-client';
import { fakeClockWithQueryClient } from '@/test/fake-clock';
import { authCheckQueryOptions } from './api/get-auth-check';

const queryClient = fakeClockWithQueryClient();

async function runCheck(error: ApiError) {
  const queryFn = vi.fn(() => Promise.reject(error));
  const result = queryClient()
    .fetchQuery({ ...authCheckQueryOptions(), queryFn })
    .catch((failure: unknown) => failure);
  await vi.advanceTimersByTimeAsync(10 * 60_000);
  return { outcome: await result, queryFn };
}

describe('session check retries', () => {
  it('retries a failed check 2 times', async () => {
    const { outcome, queryFn } = await runCheck(new ApiError(0, 'offline', NETWORK_ERROR_CODE));
    expect(outcome).toMatchObject({ code: NETWORK_ERROR_CODE });
    expect(queryFn).toHaveBeenCalledTimes(3);
  });

  it('never retries a 4xx', async () => {
    const { queryFn } = await runCheck(new ApiError(403, 'Forbidden', 'FORBIDDEN'));
    expect(queryFn).toHaveBeenCalledTimes(1);
  });
});

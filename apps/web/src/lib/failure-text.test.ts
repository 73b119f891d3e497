import { describe, expect, it } from 'vitest';
import { ApiError, NETWORK_ERROR_CODE } from '@/lib/api-client';
import { failureReason, refusalText } from './failure-text';

describe('failureReason', () => {
  it("prefers the server's words, then the spec's fallback, then the client's text", () => {
    const fallback = 'Failed to fetch users';
    expect(
      failureReason(
        new ApiError(500, 'Database down', 'INTERNAL', undefined, 'Database down'),
        fallback,
      ),
    ).toBe('Database down');
    expect(
      failureReason(new ApiError(502, 'Request failed with status 502', 'HTTP_502'), fallback),
    ).toBe(fallback);
    expect(failureReason(new ApiError(0, 'Network error.', NETWORK_ERROR_CODE), fallback)).toBe(
      'Network error.',
    );
    expect(failureReason(new TypeError('boom'), fallback)).toBe(fallback);
  });
});

describe('refusalText', () => {
  it("gives the server's words for a 4xx and the fallback for a 5xx, offline or a foreign error", () => {
    const fallback = 'Could not save the filter';
    expect(
      refusalText(
        new ApiError(
          409,
          'Please connect Telegram in Settings first',
          'CONFLICT',
          undefined,
          'Please connect Telegram in Settings first',
        ),
        fallback,
      ),
    ).toBe('Please connect Telegram in Settings first');
    expect(
      refusalText(
        new ApiError(500, 'Database down', 'INTERNAL', undefined, 'Database down'),
        fallback,
      ),
    ).toBe(fallback);
    expect(refusalText(new ApiError(0, 'Network error.', NETWORK_ERROR_CODE), fallback)).toBe(
      fallback,
    );
    expect(refusalText(new TypeError('boom'), fallback)).toBe(fallback);
  });
});

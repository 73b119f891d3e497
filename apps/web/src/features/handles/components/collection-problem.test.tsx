import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { handleKeys } from '../api/handle-keys';
import { makeHandle } from '../test/handle-fixtures';
import { CollectionProblem, hasCollectionProblem } from './collection-problem';

const person = () => userEvent.setup({ delay: null });

const failed = makeHandle({
  id: 7,
  handle: 'gone',
  backfill_status: 'failed',
  backfill_completed_at: null,
  last_error: '@gone is suspended',
});

const queued = {
  progress: 0,
  status: 'pending',
  totalTweets: 0,
  message: 'Waiting to start collection',
  estimatedCompletion: null,
  hasData: false,
  lastUpdated: '2026-11-26T01:00:00.000Z',
  isComplete: false,
} as const;

describe('CollectionProblem', () => {
  apiTestHooks();

  it('says a failed collection failed, with the reason the badge shows, and retries it', async () => {
    const fetchMock = stubFetch({
      'POST /api/v1/handles/7/retry': () => ok(queued),
      'GET /api/v1/handles': () => ok({ handles: [{ ...failed, backfill_status: 'pending' }] }),
    });
    const { queryClient } = renderRoute('/', <CollectionProblem handle={failed} />);
    queryClient.setQueryData(handleKeys.list, [failed]);
    const alert = screen.getByTestId('handle-failed');
    expect(alert).toHaveTextContent('Collection of @gone failed');
    expect(alert).toHaveTextContent('@gone is suspended');
    await person().click(within(alert).getByRole('button', { name: 'Retry' }));
    await waitFor(() =>
      expect(requestsTo(fetchMock, 'POST /api/v1/handles/7/retry')).toHaveLength(1),
    );
    // The record follows the server's answer at once: pending, without the old reason.
    await waitFor(() =>
      expect(queryClient.getQueryData(handleKeys.list)).toEqual([
        expect.objectContaining({ id: 7, backfill_status: 'pending', last_error: null }),
      ]),
    );
  });

  it("shows the server's refusal of a retry", async () => {
    stubFetch({
      'POST /api/v1/handles/7/retry': () =>
        fail(409, '@gone has not failed: nothing to retry', 'HANDLE_NOT_FAILED'),
      'GET /api/v1/handles': () => ok({ handles: [failed] }),
    });
    renderRoute('/', <CollectionProblem handle={failed} />);
    await person().click(screen.getByRole('button', { name: 'Retry' }));
    const alert = screen.getByTestId('handle-failed');
    expect(
      await within(alert).findByText('@gone has not failed: nothing to retry'),
    ).toBeInTheDocument();
  });

  it('says a collection waits for X, without a retry (it resumes by itself)', () => {
    const waiting = makeHandle({ handle: 'nasa', last_error: 'Waiting for X credentials' });
    renderRoute('/', <CollectionProblem handle={waiting} />);
    const alert = screen.getByTestId('handle-waiting');
    expect(alert).toHaveTextContent('Collection of @nasa is waiting');
    expect(alert).toHaveTextContent('Waiting for X credentials');
    expect(within(alert).queryByRole('button')).toBeNull();
    expect(hasCollectionProblem(waiting)).toBe(true);
  });

  it('is nothing for a handle that collects or is ready', () => {
    const ready = makeHandle({ handle: 'nasa' });
    const collecting = makeHandle({
      handle: 'busy',
      backfill_status: 'in_progress',
      backfill_completed_at: null,
      last_error: 'X rate limit: retrying at 01:15',
    });
    expect(hasCollectionProblem(ready)).toBe(false);
    expect(hasCollectionProblem(collecting)).toBe(false);
    renderRoute('/', <CollectionProblem handle={collecting} />);
    expect(screen.queryByTestId('handle-failed')).toBeNull();
    expect(screen.queryByTestId('handle-waiting')).toBeNull();
  });
});

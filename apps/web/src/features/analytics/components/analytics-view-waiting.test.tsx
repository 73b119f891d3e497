import { ANALYTICS_MESSAGES, type ProgressState } from '@perch/shared';
import { act, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ok, stubFetch } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import {
  makeCompleteAnalytics,
  makeEmptyAnalytics,
  makeHandleRecord,
} from '../test/analytics-fixtures';
import { FORCED_CLEAR_MS } from '../utils/collecting-overlay';
import { AnalyticsView } from './analytics-view';

const queued = makeHandleRecord({
  id: 1,
  handle: 'nasa',
  backfill_status: 'pending',
  backfill_progress: 0,
  backfill_completed_at: null,
  initial_backfill_complete: false,
  total_tweets_collected: 0,
});
const notStarted = makeCompleteAnalytics('nasa', {
  ...makeEmptyAnalytics('nasa'),
  analytics_status: 'collecting',
  backfillProgress: { progress: 0, status: 'pending', totalTweets: 0, isComplete: false },
});
const reading = (message: string): ProgressState => ({
  progress: 0,
  status: 'pending',
  totalTweets: 0,
  hasData: false,
  isComplete: false,
  completionAcknowledged: false,
  message,
  estimatedCompletion: null,
});

/** The view of the queued @nasa with this progress reading and, when given, a notice. */
function renderQueued(progress: ProgressState, collectionNotice?: ReactNode) {
  return renderRoute(
    '/',
    <AnalyticsView
      handles={[queued]}
      selectedHandle="nasa"
      onSelectHandle={() => undefined}
      progress={progress}
      collectionNotice={collectionNotice}
    />,
  );
}

describe('AnalyticsView: a collection that has not started', { timeout: 20_000 }, () => {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf; path=/';
    vi.useFakeTimers({ shouldAdvanceTime: true });
    stubFetch({ 'GET /api/v1/analytics/complete/nasa': () => ok(notStarted) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('after a minute at 0 % says it is waiting (with the server’s reason), never that it failed', async () => {
    renderQueued(reading('X rate limit reached: retrying at 01:15 UTC'));
    expect(await screen.findByTestId('collecting-overlay')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(FORCED_CLEAR_MS + 100));
    expect(screen.queryByTestId('collecting-overlay')).toBeNull();
    const waiting = screen.getByTestId('collection-waiting');
    expect(waiting).toHaveTextContent(
      'Collection of @nasa has not started yet (X rate limit reached: retrying at 01:15 UTC).',
    );
    expect(screen.queryByText(ANALYTICS_MESSAGES.stuck)).toBeNull();
  });

  it('shows the notice it is given (the server’s failure or wait) in place of its own', async () => {
    renderQueued(
      reading('Waiting to start collection'),
      <p data-testid="notice">Collection of @nasa is waiting</p>,
    );
    expect(await screen.findByTestId('notice')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(FORCED_CLEAR_MS + 100));
    expect(screen.queryByTestId('collection-waiting')).toBeNull();
    expect(screen.queryByText(ANALYTICS_MESSAGES.stuck)).toBeNull();
  });
});

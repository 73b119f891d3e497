import {
  ANALYTICS_MESSAGES,
  X_USAGE_MESSAGES,
  type CompleteAnalytics,
  type Handle,
  type ProgressState,
} from '@perch/shared';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, type Mock } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { fail, ok, requestsTo, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import {
  makeCompleteAnalytics,
  makeEmptyAnalytics,
  makeHandleRecord,
} from '../test/analytics-fixtures';
import { browserTimeZone } from '../utils/timezone';
import { AnalyticsView } from './analytics-view';

const nasa = makeHandleRecord({ id: 1, handle: 'nasa' });
const spacex = makeHandleRecord({ id: 2, handle: 'spacex' });
const github = makeHandleRecord({ id: 3, handle: 'github' });

interface HarnessProps {
  handles?: Handle[];
  initial?: string | null;
  progress?: ProgressState;
}

function Harness({ handles = [nasa, spacex], initial = 'nasa', progress }: HarnessProps) {
  const [selected, setSelected] = useState<string | null>(initial);
  return (
    <AnalyticsView
      handles={handles}
      selectedHandle={selected}
      onSelectHandle={setSelected}
      progress={progress}
    />
  );
}

/** A harness whose live progress reading can be moved on with a button, as the poll would. */
function ProgressHarness({
  handles,
  first,
  then,
}: {
  handles: Handle[];
  first: ProgressState;
  then: ProgressState;
}) {
  const [progress, setProgress] = useState(first);
  return (
    <>
      <button type="button" onClick={() => setProgress(then)}>
        Next reading
      </button>
      <Harness handles={handles} progress={progress} />
    </>
  );
}

function renderView(props: HarnessProps = {}) {
  return renderRoute('/', <Harness {...props} />);
}

const completePath = (handle: string) => `GET /api/v1/analytics/complete/${handle}`;

/** The query strings the page sent to one path. */
function searchesOf(fetchMock: Mock<typeof fetch>, key: string): URLSearchParams[] {
  const [method, path] = key.split(' ');
  return fetchMock.mock.calls
    .filter(([, init]) => (init?.method ?? 'GET') === method)
    .map(([input]) => new URL(String(input), 'http://localhost'))
    .filter((url) => url.pathname === path)
    .map((url) => url.searchParams);
}

function answer(data: CompleteAnalytics): StubHandler {
  return () => ok(data);
}

/** Serves each handle's complete analytics, keyed by the handle in the path. */
function stubAnalytics(byHandle: Record<string, CompleteAnalytics>) {
  return stubFetch(
    Object.fromEntries(
      Object.entries(byHandle).map(([handle, data]) => [completePath(handle), answer(data)]),
    ),
  );
}

const person = () => userEvent.setup({ delay: null });

// The whole dashboard (charts, a 7 x 24 heatmap) renders in each test: the DOM needs its time.
describe('AnalyticsView', { timeout: 20_000 }, () => {
  apiTestHooks();

  it('shows the summary numbers formatted for people, with the raw numbers behind them', async () => {
    const fetchMock = stubAnalytics({
      nasa: makeCompleteAnalytics('nasa'),
      spacex: makeCompleteAnalytics('spacex'),
    });
    renderView();

    const tweets = await screen.findByTestId('summary-card-total_tweets');
    expect(tweets).toHaveTextContent('1.2K');
    expect(tweets).toHaveAttribute('data-value', '1234');
    expect(screen.getByTestId('summary-card-total_likes')).toHaveTextContent('3.4M');
    expect(screen.getByTestId('summary-card-total_likes')).toHaveAttribute('data-value', '3400000');
    expect(screen.getByTestId('summary-card-engagement_rate')).toHaveTextContent('3.4%');
    expect(screen.getByTestId('summary-card-followers')).toHaveTextContent('56.8K');
    expect(screen.getByTestId('summary-card-growth_rate')).toHaveTextContent('+1.3%');
    expect(screen.getByTestId('summary-card-peak_hour')).toHaveTextContent('Tue 14:00');
    expect(screen.getByTestId('analytics-view')).toBeInTheDocument();

    // Month by default, in the browser's time zone.
    const [search] = searchesOf(fetchMock, completePath('nasa'));
    expect(search?.get('period')).toBe('30');
    expect(search?.get('timezone')).toBe(browserTimeZone());

    // Every metric explains itself.
    expect(screen.getByRole('button', { name: 'About Engagement rate' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'About Posting heatmap' })).toBeInTheDocument();

    // Sections drawn from the same payload.
    expect(screen.getByRole('heading', { name: 'Posting heatmap' })).toBeInTheDocument();
    const busiest = screen.getByRole('cell', { name: 'Tuesday 14:00–15:00: 9 posts' });
    fireEvent.pointerOver(busiest);
    expect(screen.getByTestId('heatmap-tooltip')).toHaveTextContent('Tuesday 14:00–15:00: 9 posts');
    fireEvent.pointerLeave(screen.getByRole('table', { name: 'Posts by weekday and hour' }));
    expect(screen.queryByTestId('heatmap-tooltip')).not.toBeInTheDocument();
    expect(screen.getByText('#Artemis')).toBeInTheDocument();
    expect(screen.getAllByText('English').length).toBeGreaterThan(0);
    const topTweets = screen.getByTestId('analytics-top-tweets');
    expect(within(topTweets).getByText('Liftoff! "Artemis", tonight')).toBeInTheDocument();
    const link = within(topTweets).getByRole('link', { name: 'Open tweet 1 on X' });
    expect(link).toHaveAttribute('href', 'https://x.com/nasa/status/101');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', 'noopener noreferrer');

    // The next handle's analytics are fetched ahead.
    await waitFor(() => expect(searchesOf(fetchMock, completePath('spacex'))).toHaveLength(1));
  });

  it('switches to the week and back', async () => {
    const fetchMock = stubAnalytics({
      nasa: makeCompleteAnalytics('nasa'),
      spacex: makeCompleteAnalytics('spacex'),
    });
    renderView();
    await screen.findByTestId('summary-card-total_tweets');
    expect(screen.getByRole('radio', { name: 'Month' })).toBeChecked();

    await person().click(screen.getByRole('radio', { name: 'Week' }));
    await waitFor(() =>
      expect(
        searchesOf(fetchMock, completePath('nasa')).map((search) => search.get('period')),
      ).toEqual(['30', '7']),
    );
  });

  it('switches handles with the picker', async () => {
    const fetchMock = stubAnalytics({
      nasa: makeCompleteAnalytics('nasa'),
      spacex: makeCompleteAnalytics('spacex', { summary: { total_tweets: 77 } }),
      github: makeCompleteAnalytics('github'),
    });
    renderView({ handles: [nasa, spacex, github] });
    await screen.findByTestId('summary-card-total_tweets');
    const user = person();
    await user.click(screen.getByRole('combobox', { name: 'Handle' }));
    await user.click(await screen.findByRole('option', { name: 'spacex' }));
    await waitFor(() =>
      expect(screen.getByTestId('summary-card-total_tweets')).toHaveAttribute('data-value', '77'),
    );
    // Its neighbours on both sides are fetched ahead.
    await waitFor(() => expect(searchesOf(fetchMock, completePath('github'))).toHaveLength(1));
  });

  it("says 'No data available yet for this handle' when the window has no posts", async () => {
    stubAnalytics({ nasa: makeEmptyAnalytics('nasa'), spacex: makeEmptyAnalytics('spacex') });
    renderView();
    expect(await screen.findByText(ANALYTICS_MESSAGES.noData)).toBeInTheDocument();
    expect(screen.queryByTestId('summary-card-total_tweets')).not.toBeInTheDocument();
  });

  it("says 'Waiting for X' in the header, not 'Up to date', while collection waits for X", async () => {
    stubAnalytics({ nasa: makeCompleteAnalytics('nasa'), spacex: makeCompleteAnalytics('spacex') });
    const waiting = { ...nasa, last_error: X_USAGE_MESSAGES.creditsDepleted };
    renderView({ handles: [waiting, spacex] });
    const badge = await screen.findByTestId('analytics-status-badge');
    expect(badge).toHaveTextContent('Waiting for X');
    expect(badge).toHaveAttribute('title', X_USAGE_MESSAGES.creditsDepleted);
  });

  it('says a failed collection collected nothing, rather than that the account is quiet', async () => {
    const failed = (handle: string) => {
      const empty = makeEmptyAnalytics(handle);
      return {
        ...empty,
        backfillProgress: { ...empty.backfillProgress, status: 'failed' as const, progress: 0 },
      };
    };
    stubAnalytics({ nasa: failed('nasa'), spacex: failed('spacex') });
    renderView();
    expect(await screen.findByText(/its collection failed/)).toBeInTheDocument();
    expect(screen.queryByText(/has no posts in the last/)).not.toBeInTheDocument();
  });

  it("shows 'Failed to load analytics data' and loads again on Retry", async () => {
    let calls = 0;
    stubFetch({
      [completePath('nasa')]: () => {
        calls += 1;
        return calls === 1
          ? fail(500, 'Something broke', 'INTERNAL')
          : ok(makeCompleteAnalytics('nasa'));
      },
      [completePath('spacex')]: answer(makeCompleteAnalytics('spacex')),
    });
    renderView();
    expect(await screen.findByText(ANALYTICS_MESSAGES.loadFailed)).toBeInTheDocument();
    expect(screen.getByText('Something broke')).toBeInTheDocument();

    await person().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByTestId('summary-card-total_tweets')).toHaveTextContent('1.2K');
    expect(screen.queryByText(ANALYTICS_MESSAGES.loadFailed)).not.toBeInTheDocument();
  });

  it("says 'Failed to switch to @x' when the handle switched to fails to load", async () => {
    let spacexCalls = 0;
    stubFetch({
      [completePath('nasa')]: answer(makeCompleteAnalytics('nasa')),
      [completePath('spacex')]: () => {
        spacexCalls += 1;
        return spacexCalls <= 2
          ? fail(500, 'Something broke', 'INTERNAL')
          : ok(makeCompleteAnalytics('spacex', { summary: { total_tweets: 77 } }));
      },
    });
    renderView();
    await screen.findByTestId('summary-card-total_tweets');
    const user = person();
    await user.click(screen.getByRole('combobox', { name: 'Handle' }));
    await user.click(await screen.findByRole('option', { name: 'spacex' }));

    const alert = await screen.findByTestId('analytics-error');
    expect(within(alert).getByText('Failed to switch to @spacex')).toBeInTheDocument();
    expect(within(alert).getByText('Something broke')).toBeInTheDocument();
    expect(screen.queryByText(ANALYTICS_MESSAGES.loadFailed)).not.toBeInTheDocument();

    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    await waitFor(() =>
      expect(screen.getByTestId('summary-card-total_tweets')).toHaveAttribute('data-value', '77'),
    );
    expect(screen.queryByTestId('analytics-error')).not.toBeInTheDocument();
  });

  it("keeps 'Failed to load analytics data' for the first handle shown", async () => {
    stubFetch({
      [completePath('spacex')]: () => fail(500, 'Something broke', 'INTERNAL'),
    });
    renderView({ initial: 'spacex' });
    const alert = await screen.findByTestId('analytics-error');
    expect(within(alert).getByText(ANALYTICS_MESSAGES.loadFailed)).toBeInTheDocument();
    expect(screen.queryByText('Failed to switch to @spacex')).not.toBeInTheDocument();
  });

  it("discards another handle's payload: 'Data mismatch detected, please refresh'", async () => {
    stubAnalytics({
      nasa: makeCompleteAnalytics('spacex'),
      spacex: makeCompleteAnalytics('spacex'),
    });
    renderView();
    expect(await screen.findByText(ANALYTICS_MESSAGES.mismatch)).toBeInTheDocument();
    expect(screen.queryByTestId('summary-card-total_tweets')).not.toBeInTheDocument();
    expect(screen.getByTestId('export-analytics')).toBeDisabled();
  });

  it('accepts a payload whose handle differs only in case', async () => {
    stubAnalytics({ nasa: makeCompleteAnalytics('NASA'), spacex: makeCompleteAnalytics('spacex') });
    renderView();
    expect(await screen.findByTestId('summary-card-total_tweets')).toBeInTheDocument();
    expect(screen.queryByText(ANALYTICS_MESSAGES.mismatch)).not.toBeInTheDocument();
  });

  it('refreshes into the cache, then refuses a second refresh within 5 s and says so', async () => {
    const fetchMock = stubFetch({
      [completePath('nasa')]: answer(makeCompleteAnalytics('nasa')),
      [completePath('spacex')]: answer(makeCompleteAnalytics('spacex')),
      'POST /api/v1/analytics/refresh/nasa': answer(
        makeCompleteAnalytics('nasa', { summary: { total_likes: 5_600_000 } }),
      ),
    });
    renderView();
    await screen.findByTestId('summary-card-total_tweets');
    const user = person();
    const refresh = screen.getByTestId('refresh-analytics');

    await user.click(refresh);
    await waitFor(() =>
      expect(screen.getByTestId('summary-card-total_likes')).toHaveTextContent('5.6M'),
    );
    expect(await screen.findByText(ANALYTICS_MESSAGES.refreshed)).toBeInTheDocument();
    const [post] = requestsTo(fetchMock, 'POST /api/v1/analytics/refresh/nasa');
    expect(post?.headers.get('X-CSRF-Token')).toBe('csrf');
    expect(searchesOf(fetchMock, 'POST /api/v1/analytics/refresh/nasa')[0]?.get('period')).toBe(
      '30',
    );

    await user.click(refresh);
    expect(await screen.findByText(ANALYTICS_MESSAGES.refreshThrottled)).toBeInTheDocument();
    expect(requestsTo(fetchMock, 'POST /api/v1/analytics/refresh/nasa')).toHaveLength(1);
  });

  it("says 'Failed to refresh analytics data' when a refresh fails, keeping the numbers", async () => {
    stubFetch({
      [completePath('nasa')]: answer(makeCompleteAnalytics('nasa')),
      [completePath('spacex')]: answer(makeCompleteAnalytics('spacex')),
      'POST /api/v1/analytics/refresh/nasa': () => fail(500, 'Something broke', 'INTERNAL'),
    });
    renderView();
    await screen.findByTestId('summary-card-total_tweets');
    await person().click(screen.getByTestId('refresh-analytics'));
    expect(await screen.findByTestId('refresh-notice')).toHaveTextContent(
      'Failed to refresh analytics data',
    );
    expect(screen.getByTestId('summary-card-total_tweets')).toHaveTextContent('1.2K');
  });

  it("shows the server's words when it refuses a refresh with a 429", async () => {
    stubFetch({
      [completePath('nasa')]: answer(makeCompleteAnalytics('nasa')),
      [completePath('spacex')]: answer(makeCompleteAnalytics('spacex')),
      'POST /api/v1/analytics/refresh/nasa': () =>
        fail(429, 'Analytics of @nasa were refreshed a moment ago.', 'RATE_LIMITED'),
    });
    renderView();
    await screen.findByTestId('summary-card-total_tweets');
    await person().click(screen.getByTestId('refresh-analytics'));
    expect(
      await screen.findByText('Analytics of @nasa were refreshed a moment ago.'),
    ).toBeInTheDocument();
  });

  it("says 'No handle selected' without a handle, and asks for nothing", async () => {
    const fetchMock = stubFetch({});
    renderView({ handles: [], initial: null });
    expect(screen.getByText('No handle selected')).toBeInTheDocument();
    expect(screen.getByTestId('refresh-analytics')).toBeDisabled();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("says 'Not enough snapshots yet' when velocity cannot be told", async () => {
    stubAnalytics({
      nasa: makeCompleteAnalytics('nasa', {
        velocity: {
          avg_1h: null,
          avg_3h: null,
          avg_6h: null,
          posts_measured_1h: 0,
          posts_measured_3h: 0,
          posts_measured_6h: 0,
          peak: null,
        },
      }),
      spacex: makeCompleteAnalytics('spacex'),
    });
    renderView();
    const velocity = await screen.findByTestId('analytics-velocity');
    expect(within(velocity).getByText(/Not enough snapshots yet/)).toBeInTheDocument();
  });

  it('covers a collecting handle with the progress, then announces the completion', async () => {
    const collecting = makeHandleRecord({
      id: 1,
      handle: 'nasa',
      backfill_status: 'in_progress',
      backfill_progress: 42,
      backfill_completed_at: null,
      total_tweets_collected: 17,
    });
    const progress: ProgressState = {
      progress: 42,
      status: 'in_progress',
      totalTweets: 17,
      hasData: true,
      isComplete: false,
      completionAcknowledged: false,
      message: 'Collecting tweets from March',
    };
    const stillCollecting = makeCompleteAnalytics('nasa', {
      ...makeEmptyAnalytics('nasa'),
      analytics_status: 'collecting',
      backfillProgress: { progress: 42, status: 'in_progress', isComplete: false },
    });
    let current = stillCollecting;
    const fetchMock = stubFetch({
      [completePath('nasa')]: () => ok(current),
      [completePath('spacex')]: answer(makeCompleteAnalytics('spacex')),
    });
    renderRoute(
      '/',
      <ProgressHarness
        handles={[collecting, spacex]}
        first={progress}
        then={{ ...progress, progress: 100, status: 'completed', isComplete: true }}
      />,
    );
    const overlay = await screen.findByTestId('collecting-overlay');
    expect(within(overlay).getByText('42%')).toBeInTheDocument();
    expect(within(overlay).getByText('17 tweets found')).toBeInTheDocument();
    expect(within(overlay).getByText('Collecting @nasa')).toBeInTheDocument();
    // The server's own wording would only repeat the numbers (with its own rounding).
    expect(within(overlay).queryByText('Collecting tweets from March')).not.toBeInTheDocument();
    expect(await screen.findByTestId('analytics-status-badge')).toHaveTextContent('Collecting 42%');
    await waitFor(() => expect(searchesOf(fetchMock, completePath('nasa'))).toHaveLength(1));

    current = makeCompleteAnalytics('nasa');
    await person().click(screen.getByRole('button', { name: 'Next reading' }));
    expect(await screen.findByText('@nasa data collection completed!')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('collecting-overlay')).not.toBeInTheDocument());
    // The analytics are fetched again once the collection completed.
    await waitFor(() =>
      expect(searchesOf(fetchMock, completePath('nasa')).length).toBeGreaterThan(1),
    );
    expect(await screen.findByTestId('summary-card-total_tweets')).toHaveTextContent('1.2K');
  });
  describe('collected range', () => {
    const series = ['2025-02-21', '2025-02-22', '2025-02-23', '2025-02-24'].map((date) => ({
      date,
      tweets: date < '2025-02-23' ? 0 : 12,
      likes: 0,
      retweets: 0,
      replies: 0,
      quotes: 0,
      engagement: date < '2025-02-23' ? 0 : 300,
      engagement_rate: 0,
    }));

    it('says when collection began and marks the earlier days of the chart as not collected', async () => {
      // The month from Feb 8; the handle was backfilled from Feb 23 only.
      stubAnalytics({
        nasa: makeCompleteAnalytics('nasa', {
          window: { start: '2025-02-08T12:00:00.000Z', end: '2025-03-10T12:00:00.000Z' },
          collected_since: '2025-02-23T12:00:00.000Z',
          timeSeries: { series },
        }),
        spacex: makeCompleteAnalytics('spacex'),
      });
      renderView();
      expect(await screen.findByTestId('collected-since')).toHaveTextContent(
        'Collected since Feb 23 — earlier days have no data',
      );
      const chart = screen.getByTestId('analytics-time-series');
      expect(
        within(chart).getByLabelText('Engagement per day; no data before Feb 23'),
      ).toBeInTheDocument();
    });

    it('says nothing when collection covers the whole window, or has not begun', async () => {
      stubAnalytics({
        nasa: makeCompleteAnalytics('nasa', {
          window: { start: '2025-03-03T12:00:00.000Z', end: '2025-03-10T12:00:00.000Z' },
          collected_since: '2025-02-23T12:00:00.000Z',
        }),
        spacex: makeCompleteAnalytics('spacex', { collected_since: null }),
      });
      renderView();
      const chart = await screen.findByTestId('analytics-time-series');
      expect(within(chart).getByLabelText('Engagement per day')).toBeInTheDocument();
      expect(screen.queryByTestId('collected-since')).not.toBeInTheDocument();

      const user = person();
      await user.click(screen.getByRole('combobox', { name: 'Handle' }));
      await user.click(await screen.findByRole('option', { name: 'spacex' }));
      await waitFor(() => expect(screen.getByText('@spacex')).toBeInTheDocument());
      expect(screen.queryByTestId('collected-since')).not.toBeInTheDocument();
    });
  });

  describe('collection progress', () => {
    const collectingRecord = makeHandleRecord({
      id: 1,
      handle: 'nasa',
      backfill_status: 'in_progress',
      backfill_progress: 2.6,
      backfill_completed_at: null,
      total_tweets_collected: 11,
    });
    /** The payload was computed before the collection moved on: it still says 0 %. */
    const computedEarlier = makeCompleteAnalytics('nasa', {
      ...makeEmptyAnalytics('nasa'),
      analytics_status: 'collecting',
      backfillProgress: { progress: 0, status: 'in_progress', totalTweets: 0, isComplete: false },
    });
    const live = (overrides: Partial<ProgressState> = {}): ProgressState => ({
      progress: 2.6,
      status: 'in_progress',
      totalTweets: 11,
      hasData: true,
      isComplete: false,
      completionAcknowledged: false,
      message: 'Collecting 2% (11 tweets found)',
      estimatedCompletion: null,
      ...overrides,
    });

    it('shows the live progress in the header badge and the overlay, rounded alike', async () => {
      stubAnalytics({ nasa: computedEarlier, spacex: makeCompleteAnalytics('spacex') });
      renderView({
        handles: [collectingRecord, spacex],
        progress: live({ estimatedCompletion: new Date(Date.now() + 24_000).toISOString() }),
      });
      const overlay = await screen.findByTestId('collecting-overlay');
      expect(await screen.findByTestId('analytics-status-badge')).toHaveTextContent(
        'Collecting 3%',
      );
      expect(within(overlay).getByTestId('collecting-percent')).toHaveTextContent('3%');
      // The tweets found once, the time left, and not the server's message repeating them.
      expect(within(overlay).getAllByText(/tweets found/)).toHaveLength(1);
      expect(within(overlay).getByText('11 tweets found')).toBeInTheDocument();
      expect(within(overlay).getByTestId('collecting-time-left')).toHaveTextContent(
        /^about (20|25) s left$/,
      );
      expect(within(overlay).queryByText(/Collecting 2%/)).not.toBeInTheDocument();
      expect(within(overlay).queryByTestId('collecting-status')).not.toBeInTheDocument();
    });

    it("falls back to the payload's progress without a live reading", async () => {
      stubAnalytics({
        nasa: makeCompleteAnalytics('nasa', {
          analytics_status: 'collecting',
          backfillProgress: {
            progress: 41.6,
            status: 'in_progress',
            totalTweets: 640,
            isComplete: false,
          },
        }),
        spacex: makeCompleteAnalytics('spacex'),
      });
      renderView({ handles: [collectingRecord, spacex] });
      expect(await screen.findByTestId('analytics-status-badge')).toHaveTextContent(
        'Collecting 42%',
      );
      expect(screen.getByTestId('still-collecting')).toHaveTextContent('42% done');
      expect(screen.getByTestId('still-collecting')).toHaveTextContent('640 tweets found');
    });

    it("says 'Starting collection...' and 'Scanning...' before anything was found", async () => {
      stubAnalytics({ nasa: computedEarlier, spacex: makeCompleteAnalytics('spacex') });
      renderView({
        handles: [collectingRecord, spacex],
        progress: live({ progress: 0, status: 'pending', totalTweets: 0, message: '' }),
      });
      const overlay = await screen.findByTestId('collecting-overlay');
      expect(within(overlay).getByTestId('collecting-percent')).toHaveTextContent('0%');
      expect(within(overlay).getByText('Scanning...')).toBeInTheDocument();
      expect(within(overlay).getByText('Starting collection...')).toBeInTheDocument();
      expect(within(overlay).queryByTestId('collecting-time-left')).not.toBeInTheDocument();
    });
  });
});

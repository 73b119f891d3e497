import { X_USAGE_MESSAGES, X_USAGE_POLL_MS } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { xUsageQueryOptions } from '../api/get-x-usage';
import { setUpAdminTests } from '../test/admin-test-setup';
import { phoneScreen } from '../test/phone-screen';
import { X_USAGE_ROUTE, makeXUsage, renderXUsage, renderXUsageOf } from '../test/x-usage-fixtures';

const NOW = new Date('2025-03-10T12:00:00.000Z');
const USAGE = X_USAGE_ROUTE;
const card = () => screen.getByRole('region', { name: 'X API usage' });

/** A month of reads over two handles and some of a deleted one, with a $1 daily limit. */
const busyMonth = makeXUsage({
  today: { day: '2025-03-10', post_reads: 170, user_reads: 2, usd: 0.87 },
  month: { month: '2025-03', post_reads: 1204, user_reads: 3, usd: 6.05, projected_usd: 19.85 },
  handles: [
    {
      handle_id: 11,
      handle: 'nasa',
      today: { post_reads: 120, user_reads: 1, usd: 0.61 },
      month: { post_reads: 900, user_reads: 1, usd: 4.51 },
    },
    {
      handle_id: null,
      handle: null,
      today: { post_reads: 0, user_reads: 0, usd: 0 },
      month: { post_reads: 254, user_reads: 1, usd: 1.28 },
    },
    {
      handle_id: 12,
      handle: 'spacex',
      today: { post_reads: 50, user_reads: 1, usd: 0.26 },
      month: { post_reads: 50, user_reads: 1, usd: 0.26 },
    },
  ],
  budget: { daily_limit_usd: 1, cut: ['metrics'] },
  rate_status: {
    endpoints: [
      {
        endpoint: 'users/:id/tweets',
        limit: 900,
        remaining: 880,
        resetAt: '2025-03-10T12:12:00.000Z',
      },
      { endpoint: 'tweets', limit: null, remaining: null, resetAt: null },
    ],
    app_day: { limit: 100_000, remaining: 99_120, resetAt: '2025-03-11T09:00:00.000Z' },
  },
});

describe('X API usage', () => {
  setUpAdminTests({ csrf: false, now: NOW });

  it('shows today, this month and the projection in USD with their reads', async () => {
    renderXUsageOf(busyMonth);
    const today = await within(card()).findByTestId('x-usage-today');
    expect(today).toHaveTextContent('Today (UTC)');
    expect(today).toHaveTextContent('$0.87');
    expect(today).toHaveTextContent('170 post reads · 2 user reads');
    const month = within(card()).getByTestId('x-usage-month');
    expect(month).toHaveTextContent('$6.05');
    expect(month).toHaveTextContent('1,204 post reads · 3 user reads');
    const projected = within(card()).getByTestId('x-usage-projected');
    expect(projected).toHaveTextContent('Projected this month');
    expect(projected).toHaveTextContent('$19.85');
    expect(within(card()).getByTestId('x-usage-prices')).toHaveTextContent(
      'Prices: $0.005 per post read, $0.01 per user read, each billed once per UTC day.',
    );
  });

  it('shows the metric-refresh preset and what a typical handle costs under it', async () => {
    renderXUsageOf(busyMonth);
    const preset = await within(card()).findByTestId('x-usage-metric-refresh');
    expect(preset).toHaveTextContent('Metric refresh: Standard (re-reads at 1, 3, 6, 24 and 72 h)');
    expect(preset).toHaveTextContent(
      'About $4.80 a month per handle posting 10 a day (estimate from the schedule and the prices, not from the reads above)',
    );
  });

  it('shows the economy preset and its cost', async () => {
    renderXUsageOf(
      makeXUsage({
        metric_refresh: {
          preset: 'economy',
          typical_handle: {
            posts_per_day: 10,
            post_reads_per_day: 10,
            user_reads_per_day: 1,
            month_usd: 1.8,
          },
        },
      }),
    );
    const preset = await within(card()).findByTestId('x-usage-metric-refresh');
    expect(preset).toHaveTextContent('Metric refresh: Economy (re-reads on the posting day only)');
    expect(preset).toHaveTextContent('About $1.80 a month per handle posting 10 a day');
    // The empty state of the reads stays beside it.
    expect(within(card()).getByTestId('x-usage-empty')).toHaveTextContent(X_USAGE_MESSAGES.noReads);
  });

  it('shows the daily limit filling up and the work it stops', async () => {
    renderXUsageOf(busyMonth);
    const budget = await within(card()).findByTestId('x-usage-budget');
    expect(budget).toHaveTextContent('$0.87 of $1.00 spent today (87%)');
    expect(
      within(budget).getByRole('progressbar', { name: 'Share of the daily limit spent' }),
    ).toHaveAttribute('aria-valuenow', '87');
    expect(budget).toHaveTextContent(X_USAGE_MESSAGES.budgetCutting('Metric refresh'));
    expect(budget).toHaveTextContent('Metric refresh: stopped at 80%');
    expect(budget).toHaveTextContent('Backfill: stops at 90%');
    expect(budget).toHaveTextContent('New tweets: stops at 100%');
    expect(within(budget).queryByText('Paused')).toBeNull();
    // Nothing is paused outright: no banner.
    expect(screen.queryByTestId('x-budget-banner')).toBeNull();
  });

  it('says when the whole daily limit is spent', async () => {
    renderXUsageOf(
      makeXUsage({
        today: { day: '2025-03-10', post_reads: 200, user_reads: 0, usd: 1 },
        month: { month: '2025-03', post_reads: 200, user_reads: 0, usd: 1, projected_usd: 3.1 },
        budget: { daily_limit_usd: 1, paused: true, cut: ['metrics', 'backfill', 'poll'] },
      }),
    );
    const budget = await within(card()).findByTestId('x-usage-budget');
    expect(budget).toHaveTextContent('$1.00 of $1.00 spent today (100%)');
    expect(budget).toHaveTextContent(X_USAGE_MESSAGES.budgetPaused);
    expect(within(budget).getByText('Paused')).toBeInTheDocument();
    expect(budget).toHaveTextContent('New tweets: stopped at 100%');
  });

  it('says there is no limit when none is set', async () => {
    renderXUsageOf(makeXUsage({ ...busyMonth, budget: { daily_limit_usd: null, cut: [] } }));
    expect(await within(card()).findByTestId('x-usage-budget')).toHaveTextContent(
      X_USAGE_MESSAGES.noLimit,
    );
    expect(within(card()).queryByRole('progressbar')).toBeNull();
  });

  it('breaks the cost down per handle, reads of deleted handles together', async () => {
    renderXUsageOf(busyMonth);
    const table = await within(card()).findByRole('table', { name: 'Cost per handle' });
    const rows = within(table).getAllByTestId('x-usage-handle-row');
    expect(rows.map((row) => row.getAttribute('aria-label'))).toEqual([
      '@nasa',
      X_USAGE_MESSAGES.unknownHandle,
      '@spacex',
    ]);
    const nasa = within(table).getByRole('row', { name: '@nasa' });
    expect(nasa).toHaveTextContent('$0.61');
    expect(nasa).toHaveTextContent('120 post reads · 1 user read');
    expect(nasa).toHaveTextContent('$4.51');
    expect(nasa).toHaveTextContent('900 post reads · 1 user read');
  });

  it('shows each handle as a card on phones', async () => {
    phoneScreen();
    renderXUsageOf(busyMonth);
    const list = await within(card()).findByRole('list', { name: 'Cost per handle' });
    const spacex = within(list).getByRole('listitem', { name: '@spacex' });
    expect(within(spacex).getByText('Today')).toBeInTheDocument();
    expect(within(spacex).getByText('This month')).toBeInTheDocument();
    expect(spacex).toHaveTextContent('50 post reads · 1 user read');
    expect(within(card()).queryByRole('table')).toBeNull();
  });

  it('shows the rate limits left per endpoint and for the day', async () => {
    renderXUsageOf(busyMonth);
    const limits = await within(card()).findByRole('table', { name: 'Rate limits' });
    const timeline = within(limits).getByRole('row', { name: 'users/:id/tweets' });
    expect(timeline).toHaveTextContent('880 of 900 left');
    expect(timeline).toHaveTextContent('in 12 min');
    expect(within(limits).getByRole('row', { name: 'tweets' })).toHaveTextContent('not reported');
    expect(within(card()).getByTestId('x-rate-limit-app-day')).toHaveTextContent(
      'App, 24 hours: 99,120 of 100,000 left, resets in 21 h',
    );
  });

  it('has an empty state before the first read', async () => {
    renderXUsageOf(makeXUsage());
    expect(await within(card()).findByTestId('x-usage-empty')).toHaveTextContent(
      X_USAGE_MESSAGES.noReads,
    );
    expect(within(card()).getByTestId('x-usage-today')).toHaveTextContent('$0.00');
    expect(within(card()).getByTestId('x-usage-no-rate-limits')).toHaveTextContent(
      X_USAGE_MESSAGES.noRateStatus,
    );
    expect(within(card()).queryByRole('table')).toBeNull();
  });

  it('says the demo source does not use the X API', async () => {
    renderXUsageOf(makeXUsage({ source: 'demo' }));
    expect(await within(card()).findByTestId('x-usage-demo')).toHaveTextContent(
      X_USAGE_MESSAGES.demoSource,
    );
    expect(within(card()).queryByTestId('x-usage-today')).toBeNull();
    expect(within(card()).queryByTestId('x-usage-metric-refresh')).toBeNull();
  });

  it('shows a skeleton while loading', async () => {
    let answer: (response: Response) => void = () => {};
    stubFetch({ [USAGE]: () => new Promise<Response>((resolve) => (answer = resolve)) });
    renderXUsage();
    expect(
      await within(card()).findByLabelText('Loading X API usage', { selector: '[aria-busy]' }),
    ).toBeInTheDocument();
    expect(within(card()).queryByTestId('x-usage-metric-refresh')).toBeNull();
    answer(ok(makeXUsage()));
    expect(await within(card()).findByTestId('x-usage-today')).toBeInTheDocument();
    expect(within(card()).getByTestId('x-usage-metric-refresh')).toBeInTheDocument();
  });

  it("shows 'Failed to load X API usage.' with the server's reason, and retries", async () => {
    let failing = true;
    const fetchMock = stubFetch({
      [USAGE]: () =>
        failing ? fail(503, 'The database is busy.', 'UNAVAILABLE') : ok(makeXUsage()),
    });
    renderXUsage();
    const error = await within(card()).findByTestId('x-usage-error');
    expect(error).toHaveTextContent(X_USAGE_MESSAGES.loadUsageFailed);
    expect(error).toHaveTextContent('The database is busy.');
    expect(within(card()).queryByTestId('x-usage-metric-refresh')).toBeNull();
    failing = false;
    await userEvent
      .setup({ delay: null, advanceTimers: vi.advanceTimersByTime })
      .click(within(error).getByRole('button', { name: 'Retry' }));
    expect(await within(card()).findByTestId('x-usage-today')).toBeInTheDocument();
    expect(requestsTo(fetchMock, USAGE)).toHaveLength(2);
  });

  it('falls back to its own text when the server gives no reason', async () => {
    stubFetch({ [USAGE]: () => new Response('', { status: 502 }) });
    renderXUsage();
    expect(await within(card()).findByTestId('x-usage-error')).toHaveTextContent(
      X_USAGE_MESSAGES.fetchUsageFailed,
    );
  });

  it('fetches the usage again every 30 s, once for the card and the banner', async () => {
    const { fetchMock } = renderXUsageOf(makeXUsage());
    await within(card()).findByTestId('x-usage-today');
    expect(requestsTo(fetchMock, USAGE)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(X_USAGE_POLL_MS);
    await waitFor(() => expect(requestsTo(fetchMock, USAGE)).toHaveLength(2));
    expect(xUsageQueryOptions().refetchIntervalInBackground).toBe(false);
  });
});

import { X_USAGE_MESSAGES } from '@perch/shared';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { setUpAdminTests } from '../test/admin-test-setup';
import { makeXUsage, renderXUsageOf } from '../test/x-usage-fixtures';
import { X_WEB_TEXTS } from '../utils/x-web-texts';

const NOW = new Date('2025-03-10T12:00:00.000Z');

/** Waits for the usage to arrive (the card shows it), so an absent banner is really absent. */
const usageShown = () => screen.findByTestId('x-usage-today');

describe('X API status banner', () => {
  setUpAdminTests({ csrf: false, now: NOW });

  it('says nothing while X answers and the budget allows new tweets', async () => {
    renderXUsageOf(makeXUsage({ budget: { daily_limit_usd: 1, cut: ['metrics'] } }));
    await usageShown();
    expect(screen.queryByTestId('x-credentials-banner')).toBeNull();
    expect(screen.queryByTestId('x-budget-banner')).toBeNull();
  });

  it('waits for credentials X refused, with since when and the next check', async () => {
    renderXUsageOf(
      makeXUsage({
        credentials: {
          state: 'auth',
          detail: 'Unauthorized',
          since: '2025-03-10T11:00:00.000Z',
          next_probe_at: '2025-03-10T12:04:00.000Z',
        },
      }),
    );
    const banner = await screen.findByTestId('x-credentials-banner');
    expect(within(banner).getByText(X_USAGE_MESSAGES.credentialsWaiting)).toBeInTheDocument();
    expect(banner).toHaveTextContent(X_USAGE_MESSAGES.credentialsRefused);
    expect(banner).toHaveTextContent('resumes by itself once they work');
    expect(banner).toHaveTextContent('X said: Unauthorized');
    expect(banner).toHaveTextContent('Since Mar 10, 2025');
    expect(banner).toHaveTextContent('Next check in 4 min');
    expect(
      within(banner).getByText('Since', { exact: false }).querySelector('time'),
    ).toHaveAttribute('dateTime', '2025-03-10T11:00:00.000Z');
  });

  it('asks for credits when X says they are depleted', async () => {
    renderXUsageOf(
      makeXUsage({
        credentials: {
          state: 'credits',
          detail: X_USAGE_MESSAGES.creditsDepleted,
          since: '2025-03-10T11:30:00.000Z',
          next_probe_at: '2025-03-10T12:02:00.000Z',
        },
      }),
    );
    const banner = await screen.findByTestId('x-credentials-banner');
    expect(within(banner).getByText(X_USAGE_MESSAGES.creditsDepleted)).toBeInTheDocument();
    expect(banner).toHaveTextContent(X_USAGE_MESSAGES.creditsDepletedDetail);
    expect(banner).toHaveTextContent('Next check in 2 min');
    expect(banner).not.toHaveTextContent(X_USAGE_MESSAGES.credentialsWaiting);
    // The title is said once, not again as X's words.
    expect(banner).not.toHaveTextContent('X said');
  });

  it('says when the daily budget has paused collection, and when it resumes', async () => {
    renderXUsageOf(
      makeXUsage({
        budget: { daily_limit_usd: 1, paused: true, cut: ['metrics', 'backfill', 'poll'] },
      }),
    );
    const banner = await screen.findByTestId('x-budget-banner');
    expect(banner).toHaveTextContent(X_USAGE_MESSAGES.budgetPaused);
    expect(banner).toHaveTextContent('Resumes in 12 h');
    expect(screen.queryByTestId('x-credentials-banner')).toBeNull();
  });

  it('shows both when X refuses and the budget is spent', async () => {
    renderXUsageOf(
      makeXUsage({
        budget: { daily_limit_usd: 1, paused: true, cut: ['metrics', 'backfill', 'poll'] },
        credentials: { state: 'credits' },
      }),
    );
    expect(await screen.findByTestId('x-credentials-banner')).toBeInTheDocument();
    expect(screen.getByTestId('x-budget-banner')).toBeInTheDocument();
  });

  it('says nothing for the demo source', async () => {
    renderXUsageOf(makeXUsage({ source: 'demo', credentials: { state: 'auth' } }));
    await screen.findByTestId('x-usage-demo');
    expect(screen.queryByTestId('x-credentials-banner')).toBeNull();
  });

  it('x-web: says that no collector account can collect, why, and not the card of a bill', async () => {
    renderXUsageOf(
      makeXUsage({
        source: 'x-web',
        credentials: {
          state: 'auth',
          detail: 'The X web account @orbit_reader waits for a verification code (Admin page)',
          since: '2025-03-10T11:00:00.000Z',
          next_probe_at: '2025-03-10T12:04:00.000Z',
        },
        rate_status: {
          endpoints: [
            {
              endpoint: 'UserTweets',
              limit: 100,
              remaining: 37,
              resetAt: '2025-03-10T12:10:00.000Z',
            },
          ],
          app_day: null,
        },
      }),
    );
    const banner = await screen.findByTestId('x-credentials-banner');
    expect(banner).toHaveTextContent(X_WEB_TEXTS.noUsableAccount);
    expect(banner).toHaveTextContent(
      'Why: The X web account @orbit_reader waits for a verification code (Admin page)',
    );
    expect(banner).not.toHaveTextContent('X_BEARER_TOKEN');
    expect(screen.getByTestId('x-usage-x-web')).toHaveTextContent(X_WEB_TEXTS.usageNotBilled);
    expect(screen.queryByTestId('x-usage-today')).toBeNull();
    expect(screen.getAllByTestId('x-rate-limit-row')[0]).toHaveTextContent('UserTweets');
    expect(screen.getAllByTestId('x-rate-limit-row')[0]).toHaveTextContent('37');
  });
});

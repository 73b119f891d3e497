import { act, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoute } from '@/test/render';
import { makeCompleteAnalytics } from '../test/analytics-fixtures';
import { AnalyticsHeader } from './analytics-header';

const MINUTE = 60_000;

describe('Analytics freshness label', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sits beside 'computed <time>' and turns from fresh to recent as time passes", () => {
    const data = makeCompleteAnalytics('nasa');
    vi.useFakeTimers();
    // Opened 59.5 minutes after the numbers were computed.
    vi.setSystemTime(Date.parse(data.computed_at) + 59 * MINUTE + 30_000);
    renderRoute('/', <AnalyticsHeader data={data} />);

    const label = screen.getByTestId('analytics-freshness');
    expect(label).toHaveTextContent('Fresh');
    expect(label.closest('p')).toHaveTextContent(/computed .+Fresh$/);

    // Still under the hour at the clock's next tick.
    act(() => vi.advanceTimersByTime(29_999));
    expect(label).toHaveTextContent('Fresh');

    // The hour has passed by the tick after: the page was not reloaded.
    act(() => vi.advanceTimersByTime(30_001));
    expect(screen.getByTestId('analytics-freshness')).toHaveTextContent('Recent');
  });

  it('says stale for numbers computed more than a day ago', () => {
    const data = makeCompleteAnalytics('nasa');
    vi.useFakeTimers();
    vi.setSystemTime(Date.parse(data.computed_at) + 24 * 60 * MINUTE);
    renderRoute('/', <AnalyticsHeader data={data} />);
    expect(screen.getByTestId('analytics-freshness')).toHaveTextContent('Stale');
  });
});

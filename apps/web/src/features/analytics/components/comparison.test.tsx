import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderRoute } from '@/test/render';
import { NO_POSTS_SUMMARY, makeCompleteAnalytics, withPrevious } from '../test/analytics-fixtures';
import { SummaryCards } from './summary-cards';
import { TimeSeriesCard } from './time-series-card';
import { WordsCard } from './words-card';

/** A week of the busy fixture handle, its collection reaching back well before the week. */
const week = makeCompleteAnalytics('nasa', {
  period: 7,
  window: { start: '2025-03-03T12:00:00.000Z', end: '2025-03-10T12:00:00.000Z' },
  collected_since: '2025-01-01T00:00:00.000Z',
  summary: { total_quotes: 0 },
});

function change(key: string) {
  const line = screen.getByTestId(`summary-change-${key}`);
  return { text: line.textContent, tone: line.getAttribute('data-tone') };
}

describe('summary cards against the previous period', () => {
  it('each card says how it changed: up, down, equal, from 0, unknown, growth in points, the peak', () => {
    renderRoute(
      '/',
      <SummaryCards
        data={withPrevious(week, {
          summary: {
            total_tweets: 1000,
            total_likes: 3_400_000,
            total_retweets: 48_000,
            total_replies: 0,
            total_quotes: 0,
            followers: null,
            engagement_rate: 4,
            growth_rate: 0.75,
            peak_day: 'Monday',
            peak_hour: 9,
          },
        })}
      />,
    );
    expect(change('total_tweets')).toEqual({ text: '+23.4% vs last week', tone: 'up' });
    expect(change('total_likes')).toEqual({ text: 'same as last week', tone: 'neutral' });
    expect(change('total_retweets')).toEqual({ text: '-5% vs last week', tone: 'down' });
    expect(change('total_replies')).toEqual({ text: 'up from 0 last week', tone: 'up' });
    expect(change('total_quotes')).toEqual({ text: 'same as last week', tone: 'neutral' });
    expect(change('followers')).toEqual({ text: 'no data last week', tone: 'neutral' });
    expect(change('avg_engagement')).toEqual({
      text: 'same as last week',
      tone: 'neutral',
    });
    expect(change('engagement_rate')).toEqual({ text: '-15% vs last week', tone: 'down' });
    expect(change('growth_rate')).toEqual({ text: '+0.5 pts vs last week', tone: 'up' });
    expect(change('peak_hour')).toEqual({ text: 'last week: Mon 09:00', tone: 'neutral' });
    // The number itself is unchanged by the comparison.
    expect(screen.getByTestId('summary-card-total_tweets')).toHaveTextContent('1.2K');
    expect(screen.queryByTestId('compare-partial')).not.toBeInTheDocument();
  });

  it('an empty previous month: every card says there is no data, never Infinity or NaN', () => {
    const month = makeCompleteAnalytics('nasa', { collected_since: '2024-12-01T00:00:00.000Z' });
    renderRoute(
      '/',
      <SummaryCards
        data={withPrevious(month, {
          summary: {
            ...NO_POSTS_SUMMARY,
            avg_likes_per_tweet: 0,
            avg_retweets_per_tweet: 0,
            avg_replies_per_tweet: 0,
            engagement_rate: null,
            growth_rate: null,
            followers: null,
            following: null,
          },
        })}
      />,
    );
    const cards = screen.getByTestId('summary-cards');
    const lines = within(cards).getAllByTestId(/^summary-change-/);
    expect(lines).toHaveLength(10);
    for (const line of lines) {
      expect(line).toHaveTextContent('no data last month');
      expect(line).toHaveAttribute('data-tone', 'neutral');
    }
    expect(cards.textContent).not.toMatch(/Infinity|NaN/);
  });

  it('without the previous period in the payload, no change lines', () => {
    renderRoute('/', <SummaryCards data={week} />);
    expect(screen.getByTestId('summary-card-total_tweets')).toBeInTheDocument();
    expect(screen.queryAllByTestId(/^summary-change-/)).toHaveLength(0);
  });

  it('says so when collection began inside the previous period', () => {
    renderRoute(
      '/',
      <SummaryCards
        data={withPrevious({ ...week, collected_since: '2025-02-27T09:00:00.000Z' })}
      />,
    );
    expect(screen.getByTestId('compare-partial')).toHaveTextContent(
      'Collection began on Feb 27, inside the previous week',
    );
  });
});

describe('daily chart: compare with the previous period', () => {
  it('a switch overlays the previous period as a dashed line', async () => {
    const person = userEvent.setup({ delay: null });
    renderRoute('/', <TimeSeriesCard data={withPrevious(week)} />);
    const card = screen.getByTestId('analytics-time-series');
    const toggle = within(card).getByRole('switch', { name: 'Compare with previous period' });
    expect(toggle).not.toBeChecked();
    expect(within(card).getByLabelText('Engagement per day')).toBeInTheDocument();

    await person.click(toggle);
    expect(toggle).toBeChecked();
    expect(
      within(card).getByLabelText('Engagement per day; dashed: previous week'),
    ).toBeInTheDocument();
    expect(screen.queryByTestId('compare-nothing')).not.toBeInTheDocument();

    await person.click(toggle);
    expect(within(card).getByLabelText('Engagement per day')).toBeInTheDocument();
  });

  it('says when there is nothing of the previous period to draw', async () => {
    const person = userEvent.setup({ delay: null });
    renderRoute(
      '/',
      <TimeSeriesCard
        data={withPrevious({ ...week, collected_since: '2025-03-05T00:00:00.000Z' })}
      />,
    );
    await person.click(screen.getByRole('switch', { name: 'Compare with previous period' }));
    expect(screen.getByTestId('compare-nothing')).toHaveTextContent(
      'Nothing was collected in the previous week to draw against.',
    );
  });

  it('has no switch without the previous period', () => {
    renderRoute('/', <TimeSeriesCard data={week} />);
    expect(screen.queryByRole('switch')).not.toBeInTheDocument();
  });
});

describe('top words', () => {
  it('ranks the words with their counts, at most 20', () => {
    const words = Array.from({ length: 22 }, (_, index) => ({
      word: `word${String.fromCharCode(97 + index)}`,
      count: 40 - index,
    }));
    renderRoute('/', <WordsCard data={makeCompleteAnalytics('nasa', { words: { words } })} />);
    const card = screen.getByTestId('analytics-words');
    expect(within(card).getByRole('heading', { name: 'Top words' })).toBeInTheDocument();
    expect(within(card).getByText('Times each word was used')).toBeInTheDocument();
    expect(within(card).getByText('worda')).toBeInTheDocument();
    expect(within(card).getByText('40')).toBeInTheDocument();
    expect(within(card).getByText('wordt')).toBeInTheDocument();
    expect(within(card).queryByText('wordu')).not.toBeInTheDocument();
  });

  it('says so when there are no words', () => {
    renderRoute('/', <WordsCard data={makeCompleteAnalytics('nasa', { words: { words: [] } })} />);
    expect(screen.getByTestId('analytics-words')).toHaveTextContent(/No words to count/);
  });
});

import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { makeTweet } from '../test/handle-fixtures';
import { RecentTweetsModal } from './recent-tweets-modal';

const NOW = Date.parse('2025-03-10T12:00:00.000Z');

function renderModal(handle: string | null = 'nasa') {
  return renderRoute(
    '/',
    <RecentTweetsModal handle={handle} onClose={() => undefined} now={NOW} />,
  );
}

describe('RecentTweetsModal', () => {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf; path=/';
  });

  it('lists tweets with m/h/d ago under 7 days, else the date, and their counts, media and link', async () => {
    const tweets = [
      makeTweet({
        id: '1',
        text: 'Liftoff!',
        created_at: '2025-03-10T11:55:00.000Z',
        like_count: 1200,
        retweet_count: 34,
        reply_count: 5,
        has_photo: true,
        media_urls: ['https://pbs.example/liftoff.jpg'],
      }),
      makeTweet({ id: '2', created_at: '2025-03-10T09:00:00.000Z', is_retweet: true }),
      makeTweet({ id: '3', created_at: '2025-03-08T12:00:00.000Z' }),
      makeTweet({ id: '4', created_at: '2025-02-20T12:00:00.000Z' }),
    ];
    const fetchMock = stubFetch({
      'GET /api/v1/handles/nasa/tweets': () =>
        ok({ tweets, page: 1, limit: 20, total: 240, has_more: true }),
    });
    renderModal();
    const dialog = await screen.findByRole('dialog', { name: 'Recent tweets from @nasa' });
    const items = await within(dialog).findAllByTestId('recent-tweet');
    expect(items).toHaveLength(4);
    expect(within(items[0]!).getByText('5m ago')).toBeInTheDocument();
    expect(within(items[1]!).getByText('3h ago')).toBeInTheDocument();
    expect(within(items[1]!).getByText('Retweet')).toBeInTheDocument();
    expect(within(items[2]!).getByText('2d ago')).toBeInTheDocument();
    expect(within(items[3]!).getByText('Feb 20, 2025')).toBeInTheDocument();

    const first = items[0]!;
    expect(within(first).getByText('Liftoff!')).toBeInTheDocument();
    expect(within(first).getByLabelText('1200 likes')).toHaveTextContent('1,200');
    expect(within(first).getByLabelText('34 retweets')).toBeInTheDocument();
    expect(within(first).getByLabelText('5 replies')).toBeInTheDocument();
    expect(within(first).getByRole('img', { name: 'Tweet media 1' })).toHaveAttribute(
      'src',
      'https://pbs.example/liftoff.jpg',
    );
    expect(within(first).getByRole('link', { name: 'Open tweet on X' })).toHaveAttribute(
      'href',
      'https://x.com/nasa/status/1',
    );
    expect(within(dialog).getByText('Showing the latest 4 of 240 tweets')).toBeInTheDocument();
    const url = fetchMock.mock.calls[0]?.[0];
    expect(String(url)).toContain('page=1');
    expect(String(url)).toContain('limit=20');
  });

  it('says when no tweets were collected yet', async () => {
    stubFetch({
      'GET /api/v1/handles/nasa/tweets': () =>
        ok({ tweets: [], page: 1, limit: 20, total: 0, has_more: false }),
    });
    renderModal();
    expect(
      await screen.findByText(
        'No tweets collected yet. They appear here as the backfill finds them.',
      ),
    ).toBeInTheDocument();
  });

  it('shows a loading text, then the failure', async () => {
    let answer: (response: Response) => void = () => undefined;
    stubFetch({
      'GET /api/v1/handles/nasa/tweets': () => new Promise<Response>((done) => (answer = done)),
    });
    renderModal();
    expect(await screen.findByText('Loading tweets...')).toBeInTheDocument();
    answer(fail(500, 'Database unavailable', 'INTERNAL'));
    expect(await screen.findByText('Failed to load tweets')).toBeInTheDocument();
    expect(screen.getByText('Database unavailable')).toBeInTheDocument();
  });

  it('stays closed and fetches nothing without a handle', () => {
    const fetchMock = stubFetch({});
    renderModal(null);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(requestsTo(fetchMock, 'GET /api/v1/handles//tweets')).toHaveLength(0);
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

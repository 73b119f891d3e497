import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Tweet } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { fail, ok, requestsTo, stubFetch, type StubRequest } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { makeTweet } from '../test/handle-fixtures';
import { RecentTweetsModal } from './recent-tweets-modal';

const NOW = Date.parse('2025-03-10T12:00:00.000Z');
const person = () => userEvent.setup({ delay: null });

/**
 * A small server of 45 tweets: `q` keeps those whose text holds it, `type=reply` the replies,
 * `sort=likes` orders by likes; pages of `limit`.
 */
function tweetServer() {
  const all: Tweet[] = Array.from({ length: 45 }, (_, i) =>
    makeTweet({
      id: String(1000 - i),
      text: i % 3 === 0 ? `Launch update ${i}` : `Quiet day ${i}`,
      created_at: new Date(NOW - (i + 1) * 60_000).toISOString(),
      like_count: (i * 7) % 45,
      is_reply: i % 5 === 0,
    }),
  );
  return ({ query }: StubRequest) => {
    const q = (query.get('q') ?? '').toLowerCase();
    let tweets = all.filter((tweet) => tweet.text.toLowerCase().includes(q));
    if (query.get('type') === 'reply') tweets = tweets.filter((tweet) => tweet.is_reply);
    if (query.get('sort') === 'likes') {
      tweets = [...tweets].sort((a, b) => b.like_count - a.like_count);
    }
    const page = Number(query.get('page') ?? 1);
    const limit = Number(query.get('limit') ?? 50);
    const slice = tweets.slice((page - 1) * limit, page * limit);
    return ok({
      tweets: slice,
      page,
      limit,
      total: tweets.length,
      has_more: page * limit < tweets.length,
    });
  };
}

function renderModal(handle: string | null = 'nasa') {
  return renderRoute(
    '/',
    <RecentTweetsModal handle={handle} onClose={() => undefined} now={NOW} />,
  );
}

describe('RecentTweetsModal', () => {
  apiTestHooks();

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
    expect(within(dialog).getByTestId('tweets-summary')).toHaveTextContent('240 tweets');
    expect(within(dialog).getByText('Showing 4 of 240')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Load more' })).toBeEnabled();
    const [request] = requestsTo(fetchMock, 'GET /api/v1/handles/nasa/tweets');
    expect(Object.fromEntries(request!.query)).toEqual({ page: '1', limit: '20' });
  });

  it('marks a post that fired alert rules with a bell badge naming them', async () => {
    const tweets = [
      makeTweet({ id: '1', alert_rule_names: ['Big post', 'Launch words'] }),
      makeTweet({ id: '2', alert_rule_names: [] }),
      makeTweet({ id: '3' }),
    ];
    stubFetch({
      'GET /api/v1/handles/nasa/tweets': () =>
        ok({ tweets, page: 1, limit: 20, total: 3, has_more: false }),
    });
    renderModal();
    const items = await screen.findAllByTestId('recent-tweet');
    expect(within(items[1]!).queryByTestId('tweet-alert-badge')).toBeNull();
    expect(within(items[2]!).queryByTestId('tweet-alert-badge')).toBeNull();

    const badge = within(items[0]!).getByTestId('tweet-alert-badge');
    expect(badge).toHaveTextContent('2 alerts');
    expect(badge).toHaveTextContent('Big post, Launch words');
    await person().hover(badge);
    expect(await screen.findByRole('tooltip')).toHaveTextContent(
      'Alerts fired: Big post, Launch words',
    );
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

  it('retries after a failure', async () => {
    let calls = 0;
    stubFetch({
      'GET /api/v1/handles/nasa/tweets': () =>
        ++calls === 1
          ? fail(500, 'Database unavailable', 'INTERNAL')
          : ok({ tweets: [makeTweet({ id: '1' })], page: 1, limit: 20, total: 1, has_more: false }),
    });
    renderModal();
    await person().click(await screen.findByRole('button', { name: 'Retry' }));
    expect(await screen.findByTestId('recent-tweet')).toBeInTheDocument();
    expect(screen.getByTestId('tweets-summary')).toHaveTextContent('1 tweet');
    expect(screen.queryByText('Failed to load tweets')).not.toBeInTheDocument();
  });

  it('stays closed and fetches nothing without a handle', () => {
    const fetchMock = stubFetch({});
    renderModal(null);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(requestsTo(fetchMock, 'GET /api/v1/handles//tweets')).toHaveLength(0);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('loads more pages until every tweet is shown', async () => {
    const fetchMock = stubFetch({ 'GET /api/v1/handles/nasa/tweets': tweetServer() });
    renderModal();
    const dialog = await screen.findByRole('dialog', { name: 'Recent tweets from @nasa' });
    expect(await within(dialog).findAllByTestId('recent-tweet')).toHaveLength(20);
    expect(within(dialog).getByText('Showing 20 of 45')).toBeInTheDocument();
    await person().click(within(dialog).getByRole('button', { name: 'Load more' }));
    expect(await within(dialog).findByText('Showing 40 of 45')).toBeInTheDocument();
    await person().click(within(dialog).getByRole('button', { name: 'Load more' }));
    expect(await within(dialog).findByText('Showing 45 of 45')).toBeInTheDocument();
    expect(within(dialog).getAllByTestId('recent-tweet')).toHaveLength(45);
    expect(within(dialog).queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    const pages = requestsTo(fetchMock, 'GET /api/v1/handles/nasa/tweets').map((request) =>
      request.query.get('page'),
    );
    expect(pages).toEqual(['1', '2', '3']);
  });

  it('searches once typing pauses, from page 1, and marks the words', async () => {
    const fetchMock = stubFetch({ 'GET /api/v1/handles/nasa/tweets': tweetServer() });
    renderModal();
    const dialog = await screen.findByRole('dialog', { name: 'Recent tweets from @nasa' });
    await within(dialog).findAllByTestId('recent-tweet');
    await person().type(within(dialog).getByRole('textbox', { name: 'Search tweets' }), 'launch');
    expect(await within(dialog).findByText('15 tweets match "launch"')).toBeInTheDocument();
    const items = within(dialog).getAllByTestId('recent-tweet');
    expect(items).toHaveLength(15);
    for (const item of items) expect(item).toHaveTextContent(/Launch update/);
    expect(within(items[0]!).getByText('Launch')).toHaveProperty('tagName', 'MARK');
    // One search for the whole word, not one per keystroke, from the first page.
    const searches = requestsTo(fetchMock, 'GET /api/v1/handles/nasa/tweets')
      .map((request) => Object.fromEntries(request.query))
      .filter((query) => 'q' in query);
    expect(searches).toEqual([{ page: '1', limit: '20', q: 'launch' }]);
  });

  it('filters by type and sorts, and says when nothing matches', async () => {
    const fetchMock = stubFetch({ 'GET /api/v1/handles/nasa/tweets': tweetServer() });
    renderModal();
    const dialog = await screen.findByRole('dialog', { name: 'Recent tweets from @nasa' });
    await within(dialog).findAllByTestId('recent-tweet');

    await person().selectOptions(
      within(dialog).getByRole('combobox', { name: 'Tweet type' }),
      'Replies',
    );
    expect(await within(dialog).findByText('9 replies')).toBeInTheDocument();
    await person().selectOptions(
      within(dialog).getByRole('combobox', { name: 'Sort tweets' }),
      'Most liked',
    );
    await waitFor(() => {
      const likes = within(dialog)
        .getAllByTestId('recent-tweet')
        .map((item) =>
          Number(
            within(item)
              .getByLabelText(/likes$/)
              .getAttribute('aria-label')!
              .split(' ')[0],
          ),
        );
      expect(likes).toEqual([...likes].sort((a, b) => b - a));
      expect(likes).toHaveLength(9);
    });
    const last = requestsTo(fetchMock, 'GET /api/v1/handles/nasa/tweets').at(-1)!;
    expect(Object.fromEntries(last.query)).toEqual({
      page: '1',
      limit: '20',
      type: 'reply',
      sort: 'likes',
    });

    await person().type(within(dialog).getByRole('textbox', { name: 'Search tweets' }), 'zebra');
    expect(await within(dialog).findByText('No replies match "zebra"')).toBeInTheDocument();
    expect(within(dialog).queryByTestId('recent-tweet')).not.toBeInTheDocument();
    await person().click(within(dialog).getByRole('button', { name: 'Clear filters' }));
    expect(await within(dialog).findByText('45 tweets')).toBeInTheDocument();
    expect(within(dialog).getByRole('textbox', { name: 'Search tweets' })).toHaveValue('');
    expect(within(dialog).getByRole('combobox', { name: 'Tweet type' })).toHaveValue('');
    // The sort is an order, not a filter: it stays.
    expect(within(dialog).getByRole('combobox', { name: 'Sort tweets' })).toHaveValue('likes');
  });

  it('marks whole words, and the last one also as the start of a longer word', async () => {
    stubFetch({
      'GET /api/v1/handles/nasa/tweets': () =>
        ok({
          tweets: [
            makeTweet({ id: '1', text: 'A New release: renew the news feed, New-rel build' }),
          ],
          page: 1,
          limit: 20,
          total: 1,
          has_more: false,
        }),
    });
    renderModal();
    const dialog = await screen.findByRole('dialog', { name: 'Recent tweets from @nasa' });
    await within(dialog).findByTestId('recent-tweet');
    await person().type(within(dialog).getByRole('textbox', { name: 'Search tweets' }), 'new rel');
    expect(await within(dialog).findByText('1 tweet matches "new rel"')).toBeInTheDocument();
    const marks = [...within(dialog).getByTestId('recent-tweet').querySelectorAll('mark')].map(
      (mark) => mark.textContent,
    );
    expect(marks).toEqual(['New', 'rel', 'New', 'rel']);
  });
});

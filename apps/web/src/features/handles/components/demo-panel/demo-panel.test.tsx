import type { Handle } from '@perch/shared';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { fail, ok, requestsTo, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import {
  deferred,
  makeCollectingHandle,
  makeHandle,
  progressStubs,
} from '../../test/handle-fixtures';
import { HandlesDemoSection } from './handles-demo-section';

const person = () => userEvent.setup({ delay: null });

function serve(handles: Handle[], extra: Record<string, StubHandler> = {}) {
  return stubFetch({
    'GET /api/v1/handles': () => ok({ handles }),
    ...progressStubs(handles),
    ...extra,
  });
}

async function openDemo(user = person()) {
  renderRoute('/admin', <HandlesDemoSection />);
  await user.click(screen.getByRole('button', { name: 'Show TanStack Query Demo' }));
  return screen.findByTestId('demo-panel');
}

const rowOf = (name: string) => screen.getByRole('listitem', { name: `@${name}` });
const badgeOf = (name: string) => within(rowOf(name)).getByTestId('demo-handle-status');

describe('handles demo panel', () => {
  apiTestHooks();

  it('stays hidden until shown, and Hide Demo hides it again', async () => {
    const fetchMock = serve([]);
    const user = person();
    await openDemo(user);
    expect(requestsTo(fetchMock, 'GET /api/v1/handles')).toHaveLength(1);
    expect(
      await screen.findByText('No handles added yet. Add your first Twitter handle above.'),
    ).toBeVisible();
    expect(screen.getByText('Handles (0/10)')).toBeVisible();
    expect(screen.getByPlaceholderText('Enter Twitter handle (e.g., @username)')).toBeVisible();
    expect(screen.getByLabelText('Backfill days')).toHaveValue('15');
    expect(screen.getByRole('button', { name: 'Add' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Hide Demo' }));
    expect(screen.queryByTestId('demo-panel')).toBeNull();
    expect(screen.getByRole('button', { name: 'Show TanStack Query Demo' })).toBeVisible();
  });

  /** A server that adds what is posted; each POST answers when `answer` says. */
  function addingServer(answer: () => Promise<void> | void = () => undefined) {
    const added: Handle[] = [];
    const fetchMock = stubFetch({
      'GET /api/v1/handles': () => ok({ handles: added }),
      'POST /api/v1/handles': async (request) => {
        const body = request.body as { username: string; backfill_days: number };
        const handle = makeHandle({ handle: body.username, backfill_days: body.backfill_days });
        await answer();
        added.push(handle);
        return ok({ handle }, 201);
      },
      ...Object.fromEntries(
        ['nasa', 'esa', 'jaxa'].map((name) => [
          `GET /api/v1/handles/${name}/backfill-progress`,
          () => fail(404, 'Not found', 'NOT_FOUND'),
        ]),
      ),
    });
    const posted = () =>
      requestsTo(fetchMock, 'POST /api/v1/handles').map((request) => request.body);
    return { posted };
  }

  it("shows 'Adding...' while the add runs and keeps the days within 1-90", async () => {
    const post = deferred<void>();
    const server = addingServer(() => post.promise);
    const user = person();
    await openDemo(user);
    await screen.findByText('Handles (0/10)');
    const days = screen.getByLabelText('Backfill days');
    await user.type(screen.getByLabelText('Twitter handle'), '@nasa');
    await user.clear(days);
    await user.type(days, '120');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect(await screen.findByRole('button', { name: 'Adding...' })).toBeDisabled();
    expect(days).toHaveValue('90');
    post.resolve();
    expect(await screen.findByText('@nasa added successfully!')).toBeVisible();
    expect(await screen.findByText('Handles (1/10)')).toBeVisible();
    expect(screen.getByRole('button', { name: 'Add' })).toBeDisabled();
    expect(server.posted()).toEqual([{ username: 'nasa', backfill_days: 90, async: true }]);
  });

  it('sends the days typed, and 15 when the days are left empty', async () => {
    const server = addingServer();
    const user = person();
    await openDemo(user);
    await screen.findByText('Handles (0/10)');
    const input = screen.getByLabelText('Twitter handle');
    const days = screen.getByLabelText('Backfill days');
    await user.type(input, 'esa');
    await user.clear(days);
    await user.click(screen.getByRole('button', { name: 'Add' }));
    await screen.findByText('@esa added successfully!');

    await user.type(input, 'jaxa');
    await user.type(days, '3');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    await screen.findByText('@jaxa added successfully!');
    expect(server.posted()).toEqual([
      { username: 'esa', backfill_days: 15, async: true },
      { username: 'jaxa', backfill_days: 3, async: true },
    ]);
  });

  it('fetches the list at once after an add and again 1 s later', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const handles: Handle[] = [];
    const fetchMock = stubFetch({
      'GET /api/v1/handles': () => ok({ handles }),
      'POST /api/v1/handles': () => {
        const handle = makeHandle({ handle: 'nasa' });
        handles.push(handle);
        return ok({ handle }, 201);
      },
      ...progressStubs([makeHandle({ handle: 'nasa' })]),
    });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) });
    await openDemo(user);
    await screen.findByText('Handles (0/10)');
    await user.type(screen.getByLabelText('Twitter handle'), 'nasa');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    await screen.findByText('@nasa added successfully!');
    const lists = () => requestsTo(fetchMock, 'GET /api/v1/handles').length;
    await waitFor(() => expect(lists()).toBe(2));
    await act(() => vi.advanceTimersByTimeAsync(900));
    expect(lists()).toBe(2);
    await act(() => vi.advanceTimersByTimeAsync(200));
    expect(lists()).toBe(3);
  });

  it("says 'Handle limit reached (10 max)' at 10 handles and 'Handle already exists' for a duplicate", async () => {
    const handles = Array.from({ length: 10 }, (_, index) => makeHandle({ handle: `h${index}` }));
    serve(handles);
    const user = person();
    await openDemo(user);
    expect(await screen.findByText('Handles (10/10)')).toBeVisible();
    expect(screen.getByText('Handle limit reached (10 max)')).toBeVisible();
    const input = screen.getByLabelText('Twitter handle');
    await user.click(input);
    await user.paste('another');
    expect(screen.getByRole('button', { name: 'Add' })).toBeDisabled();

    await user.clear(input);
    await user.paste('@H3');
    expect(screen.getByText('Handle already exists')).toBeVisible();
    expect(screen.getByRole('button', { name: 'Add' })).toBeDisabled();
  });

  it("says 'Handle already exists' when the server answers 409", async () => {
    serve([], {
      'POST /api/v1/handles': () => fail(409, 'Already monitoring @nasa', 'CONFLICT'),
    });
    const user = person();
    await openDemo(user);
    await screen.findByText('Handles (0/10)');
    await user.type(screen.getByLabelText('Twitter handle'), 'nasa');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Handle already exists');
    await waitFor(() => expect(screen.queryByRole('listitem', { name: '@nasa' })).toBeNull());
  });

  it('shows Ready, Collecting or Pending, and the tweet and follower counts', async () => {
    const handles = [
      makeHandle({ handle: 'done', total_tweets_collected: 120, followers_count: 1500 }),
      makeHandle({
        handle: 'dataready',
        backfill_status: 'pending',
        backfill_completed_at: null,
        analytics_available: true,
      }),
      makeCollectingHandle({
        handle: 'busy',
        backfill_progress: 40,
        analytics_available: false,
        total_tweets_collected: 17,
        followers_count: null,
      }),
      makeHandle({
        handle: 'gathering',
        backfill_status: 'collecting',
        backfill_completed_at: null,
        analytics_available: false,
      }),
      makeHandle({
        handle: 'fresh',
        backfill_status: 'pending',
        backfill_progress: 0,
        backfill_completed_at: null,
        analytics_available: false,
      }),
      makeHandle({
        handle: 'warming',
        backfill_status: 'initializing',
        backfill_completed_at: null,
        analytics_available: false,
      }),
    ];
    serve(handles);
    await openDemo();
    await screen.findByText('Handles (6/10)');
    expect(badgeOf('done')).toHaveTextContent('Ready');
    expect(badgeOf('dataready')).toHaveTextContent('Ready');
    expect(badgeOf('busy')).toHaveTextContent('Collecting');
    expect(badgeOf('gathering')).toHaveTextContent('Collecting');
    expect(badgeOf('fresh')).toHaveTextContent('Pending');
    expect(badgeOf('warming')).toHaveTextContent('Pending');
    expect(within(rowOf('done')).getByText('Tweets: 120 | Followers: 1,500')).toBeVisible();
    expect(within(rowOf('busy')).getByText('Tweets: 17 | Followers: 0')).toBeVisible();
  });

  it('selects the first handle by itself, follows Select, and after removing the selected one selects the first again', async () => {
    const nasa = makeHandle({ id: 31, handle: 'nasa' });
    const esa = makeHandle({ id: 32, handle: 'esa' });
    let handles = [nasa, esa];
    const fetchMock = stubFetch({
      'GET /api/v1/handles': () => ok({ handles }),
      ...progressStubs(handles),
      'DELETE /api/v1/handles/32': () => {
        handles = [nasa];
        return ok({ removed: true });
      },
    });
    const user = person();
    await openDemo(user);
    await screen.findByText('Handles (2/10)');
    const selectButton = (name: string) =>
      within(rowOf(name)).getByRole('button', { name: /^Select/ });
    expect(selectButton('nasa')).toHaveTextContent('Selected');
    expect(selectButton('esa')).toHaveTextContent('Select');
    expect(screen.getByText('Progress of @nasa')).toBeVisible();

    await user.click(selectButton('esa'));
    expect(selectButton('esa')).toHaveTextContent('Selected');
    expect(selectButton('esa')).toHaveAttribute('aria-pressed', 'true');
    expect(selectButton('nasa')).toHaveTextContent('Select');
    expect(await screen.findByText('Progress of @esa')).toBeVisible();

    await user.click(within(rowOf('esa')).getByRole('button', { name: 'Remove' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Are you sure you want to remove this handle?')).toBeVisible();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(requestsTo(fetchMock, 'DELETE /api/v1/handles/32')).toHaveLength(0);

    await user.click(within(rowOf('esa')).getByRole('button', { name: 'Remove' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Remove' }),
    );
    await waitFor(() => expect(screen.queryByRole('listitem', { name: '@esa' })).toBeNull());
    expect(selectButton('nasa')).toHaveTextContent('Selected');
    expect(screen.getByText('Progress of @nasa')).toBeVisible();
    expect(await screen.findByText('@esa removed.')).toBeVisible();
    expect(requestsTo(fetchMock, 'DELETE /api/v1/handles/32')).toHaveLength(1);
  });

  it("puts a handle back after a failed removal and says the server's words or 'Failed to remove handle'", async () => {
    const nasa = makeHandle({ id: 31, handle: 'nasa' });
    let answer = () => fail(409, 'Handle is being collected', 'CONFLICT');
    serve([nasa], { 'DELETE /api/v1/handles/31': () => answer() });
    const user = person();
    await openDemo(user);
    const remove = async () => {
      await user.click(
        within(await screen.findByRole('listitem', { name: '@nasa' })).getByRole('button', {
          name: 'Remove',
        }),
      );
      await user.click(
        within(await screen.findByRole('dialog')).getByRole('button', { name: 'Remove' }),
      );
    };

    await remove();
    expect(await screen.findByText('Handle is being collected')).toBeVisible();
    expect(await screen.findByRole('listitem', { name: '@nasa' })).toBeVisible();

    answer = () => new Response('Bad gateway', { status: 502 });
    await remove();
    expect(await screen.findByText('Failed to remove handle')).toBeVisible();
    expect(screen.queryByText(/❌/)).toBeNull();
    expect(screen.getByRole('listitem', { name: '@nasa' })).toBeVisible();
  });

  it("shows the selected handle's status, percent and whether analytics are available", async () => {
    const busy = makeCollectingHandle({
      handle: 'busy',
      backfill_progress: 20,
      analytics_available: false,
    });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let reading = { progress: 42, status: 'collecting', isComplete: false, totalTweets: 40 };
    serve([busy], {
      'GET /api/v1/handles/busy/backfill-progress': () =>
        ok({
          ...reading,
          message: '',
          estimatedCompletion: null,
          hasData: reading.totalTweets > 0,
          lastUpdated: '2025-03-10T12:00:00.000Z',
        }),
    });
    await openDemo(userEvent.setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) }));
    const panel = await screen.findByTestId('demo-progress-panel');
    await waitFor(() =>
      expect(within(panel).getByTestId('demo-progress-status')).toHaveTextContent(
        'Status: collecting',
      ),
    );
    expect(within(panel).getByTestId('demo-progress-percent')).toHaveTextContent('42%');
    expect(within(panel).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '42');
    expect(within(panel).getByText('Analytics Available: No')).toBeVisible();

    // The next reading (2 s later: the handle collects) says it is done.
    reading = { progress: 100, status: 'completed', isComplete: true, totalTweets: 88 };
    await act(() => vi.advanceTimersByTimeAsync(2_100));
    expect(await within(panel).findByText('Analytics Available: Yes')).toBeVisible();
    expect(within(panel).getByTestId('demo-progress-percent')).toHaveTextContent('100%');
    expect(within(panel).getByTestId('demo-progress-status')).toHaveTextContent(
      'Status: completed',
    );
  });

  it('polls faster for 10 s after Record Activity', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const fetchMock = serve([makeHandle({ id: 51, handle: 'nasa' })]);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) });
    await openDemo(user);
    const status = screen.getByTestId('demo-polling-status');
    const interval = () => within(status).getByLabelText('Current interval');
    await screen.findByText('Handles (1/10)');
    expect(interval()).toHaveTextContent('30s');
    expect(within(status).getByText('Handle list; progress every 10s')).toBeVisible();
    expect(within(status).getByLabelText('Handles last activity')).toHaveTextContent(
      'No activity yet',
    );

    await user.click(within(status).getByRole('button', { name: 'Record Activity' }));
    expect(interval()).toHaveTextContent('3s');
    expect(within(status).getByText('Handle list; progress every 2s')).toBeVisible();
    expect(within(status).getByLabelText('Handles last activity')).not.toHaveTextContent(
      'No activity yet',
    );
    expect(within(status).getByLabelText('Progress last activity')).not.toHaveTextContent(
      'No activity yet',
    );
    const before = requestsTo(fetchMock, 'GET /api/v1/handles').length;
    await act(() => vi.advanceTimersByTimeAsync(3_100));
    expect(requestsTo(fetchMock, 'GET /api/v1/handles').length).toBeGreaterThan(before);

    await act(() => vi.advanceTimersByTimeAsync(7_000));
    expect(interval()).toHaveTextContent('30s');
    expect(within(status).getByText('Handle list; progress every 10s')).toBeVisible();
  });

  it('switches notifications for a handle from its row', async () => {
    const nasa = makeHandle({ id: 61, handle: 'nasa' });
    const fetchMock = serve([nasa], {
      'PUT /api/v1/handles/61/notifications': () =>
        ok({ handle: { ...nasa, telegram_enabled: true } }),
    });
    const user = person();
    await openDemo(user);
    await screen.findByText('Handles (1/10)');
    const toggle = within(rowOf('nasa')).getByRole('switch', {
      name: 'Telegram notifications for @nasa',
    });
    await user.click(toggle);
    expect(toggle).toBeChecked();
    expect(requestsTo(fetchMock, 'PUT /api/v1/handles/61/notifications')[0]?.body).toEqual({
      telegramEnabled: true,
    });
    expect(await screen.findByRole('status')).toHaveTextContent(/Telegram/);
  });
});

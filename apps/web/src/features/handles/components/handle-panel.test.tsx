import type { Handle } from '@perch/shared';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { preferencesStore } from '@/lib/preferences';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { PHONE, setViewport } from '@/test/viewport';
import { deferred, makeCollectingHandle, makeHandle, progressStubs } from '../test/handle-fixtures';
import { HandlePanel } from './handle-panel';

function Harness({
  initial = null,
  announceSelectedCompletion,
}: {
  initial?: string | null;
  announceSelectedCompletion?: boolean;
}) {
  const [selected, setSelected] = useState<string | null>(initial);
  return (
    <>
      <p data-testid="selected">{selected ?? 'none'}</p>
      <HandlePanel
        selectedHandle={selected}
        onSelect={setSelected}
        announceSelectedCompletion={announceSelectedCompletion}
      />
    </>
  );
}

function renderPanel(initial: string | null = null) {
  return renderRoute('/', <Harness initial={initial} />);
}

/** A backfill-progress answer: done, 52 tweets. */
function completedProgress() {
  return ok({
    progress: 100,
    status: 'completed',
    totalTweets: 52,
    message: 'Done',
    estimatedCompletion: null,
    hasData: true,
    lastUpdated: '2025-03-10T12:00:00.000Z',
    isComplete: true,
  });
}

function rowOf(name: string): HTMLElement {
  return screen.getByRole('listitem', { name: `@${name}` });
}

const person = () => userEvent.setup({ delay: null });

/** Clicks Remove on the handle's row and confirms in the dialog. */
async function removeAndConfirm(handle: string) {
  const user = person();
  await user.click(screen.getByRole('button', { name: `Remove @${handle}` }));
  await user.click(
    within(await screen.findByRole('dialog')).getByRole('button', { name: 'Remove' }),
  );
}

describe('HandlePanel', () => {
  apiTestHooks();

  it('shows the add form: placeholder, 15 days (recommended) by default, Add disabled when empty', async () => {
    stubFetch({ 'GET /api/v1/handles': () => ok({ handles: [] }) });
    renderPanel();
    expect(await screen.findByText('No handles yet. Add your first handle above.')).toBeVisible();
    expect(screen.getByPlaceholderText('Enter handle without @')).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: '15 days (recommended)' })).toBeChecked();
    expect(screen.getByRole('radio', { name: '7 days' })).not.toBeChecked();
    expect(screen.getByRole('button', { name: 'Add handle' })).toBeDisabled();
    await person().type(screen.getByLabelText('Twitter handle'), '   ');
    expect(screen.getByRole('button', { name: 'Add handle' })).toBeDisabled();
  });

  it('adds optimistically: a Starting collection... row, then the server row and the success text', async () => {
    const serverHandles: Handle[] = [];
    const post = deferred<Response>();
    const added = makeCollectingHandle({
      id: 41,
      handle: 'nasa',
      backfill_progress: 30,
      total_tweets_collected: 17,
    });
    const fetchMock = stubFetch({
      'GET /api/v1/handles': () => ok({ handles: serverHandles }),
      'POST /api/v1/handles': () => post.promise,
      ...progressStubs([added]),
    });
    renderPanel();
    await screen.findByText('No handles yet. Add your first handle above.');
    const user = person();
    await user.type(screen.getByLabelText('Twitter handle'), '@@NASA ');
    await user.click(screen.getByRole('radio', { name: '7 days' }));
    await user.click(screen.getByRole('button', { name: 'Add handle' }));

    const optimistic = await screen.findByRole('listitem', { name: '@NASA' });
    expect(within(optimistic).getByText('Starting collection...')).toBeInTheDocument();
    expect(within(optimistic).getByRole('button', { name: 'Remove @NASA' })).toBeDisabled();
    expect(screen.getByTestId('selected')).toHaveTextContent('NASA');
    expect(requestsTo(fetchMock, 'POST /api/v1/handles')[0]?.body).toEqual({
      username: 'NASA',
      backfill_days: 7,
      async: true,
    });

    serverHandles.push(added);
    post.resolve(ok({ handle: added }, 201));
    expect(await screen.findByText('@nasa added successfully!')).toBeInTheDocument();
    const row = await screen.findByRole('listitem', { name: '@nasa' });
    expect(within(row).getByText('Collecting 30%')).toBeInTheDocument();
    expect(within(row).getByText('17 tweets found')).toBeInTheDocument();
    expect(within(row).getByRole('progressbar')).toBeInTheDocument();
    expect(screen.queryByRole('listitem', { name: '@NASA' })).not.toBeInTheDocument();
    expect(screen.getAllByTestId('handle-row')).toHaveLength(1);
  });

  it("rolls the optimistic row back on a 409 and shows 'Already monitoring @x'", async () => {
    const post = deferred<Response>();
    stubFetch({
      'GET /api/v1/handles': () => ok({ handles: [] }),
      'POST /api/v1/handles': () => post.promise,
    });
    renderPanel();
    await screen.findByText('No handles yet. Add your first handle above.');
    const user = person();
    await user.type(screen.getByLabelText('Twitter handle'), 'spacex');
    await user.click(screen.getByRole('button', { name: 'Add handle' }));
    expect(await screen.findByRole('listitem', { name: '@spacex' })).toBeInTheDocument();

    post.resolve(fail(409, 'Already monitoring @spacex', 'CONFLICT'));
    expect(await screen.findByRole('alert')).toHaveTextContent('Already monitoring @spacex');
    await waitFor(() =>
      expect(screen.queryByRole('listitem', { name: '@spacex' })).not.toBeInTheDocument(),
    );
    expect(screen.getByText('No handles yet. Add your first handle above.')).toBeInTheDocument();
  });

  it("shows the server's message for other add failures", async () => {
    stubFetch({
      'GET /api/v1/handles': () => ok({ handles: [] }),
      'POST /api/v1/handles': () =>
        fail(400, 'Invalid Twitter handle provided', 'VALIDATION_ERROR'),
    });
    renderPanel();
    await screen.findByText('No handles yet. Add your first handle above.');
    const user = person();
    await user.type(screen.getByLabelText('Twitter handle'), 'ghost');
    await user.click(screen.getByRole('button', { name: 'Add handle' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid Twitter handle provided');
  });

  it("hints 'Already monitoring @x' live, case-insensitively, and 'Already adding @x' while adding", async () => {
    const nasa = makeHandle({ handle: 'nasa' });
    stubFetch({
      'GET /api/v1/handles': () => ok({ handles: [nasa] }),
      'POST /api/v1/handles': () => new Promise<Response>(() => undefined),
    });
    renderPanel();
    await screen.findByRole('listitem', { name: '@nasa' });
    const user = person();
    const input = screen.getByLabelText('Twitter handle');
    await user.type(input, '@NaSa');
    expect(screen.getByText('Already monitoring @nasa')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add handle' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Already monitoring @nasa');

    expect(input).toHaveAttribute('aria-invalid', 'true');
    await user.clear(input);
    expect(input).not.toHaveAttribute('aria-invalid', 'true');
    await user.type(input, 'github');
    await user.click(screen.getByRole('button', { name: 'Add handle' }));
    await screen.findByRole('listitem', { name: '@github' });
    await user.type(input, 'GitHub');
    expect(screen.getByText('Already adding @github')).toBeInTheDocument();
    // Another action is running: Add stays disabled until it ends.
    expect(screen.getByRole('button', { name: 'Add handle' })).toBeDisabled();
  });

  it('disables Add at 10 handles and says the limit is reached', async () => {
    const handles = Array.from({ length: 10 }, (_, index) => makeHandle({ handle: `h${index}` }));
    stubFetch({ 'GET /api/v1/handles': () => ok({ handles }) });
    renderPanel();
    await screen.findByRole('listitem', { name: '@h9' });
    expect(screen.getAllByText('10/10').length).toBeGreaterThan(0);
    expect(screen.getByText('Handle limit reached (10)')).toBeInTheDocument();
    await person().type(screen.getByLabelText('Twitter handle'), 'another');
    expect(screen.getByRole('button', { name: 'Add handle' })).toBeDisabled();
  });

  it('removes after confirmation and selects the first remaining handle', async () => {
    const nasa = makeHandle({ id: 7, handle: 'nasa' });
    const spacex = makeHandle({ id: 8, handle: 'spacex' });
    let serverHandles = [nasa, spacex];
    const fetchMock = stubFetch({
      'GET /api/v1/handles': () => ok({ handles: serverHandles }),
      'DELETE /api/v1/handles/8': () => {
        serverHandles = [nasa];
        return ok({ removed: true });
      },
    });
    renderPanel('spacex');
    await screen.findByRole('listitem', { name: '@spacex' });
    const user = person();
    await user.click(screen.getByRole('button', { name: 'Remove @spacex' }));
    const dialog = await screen.findByRole('dialog');
    expect(
      within(dialog).getByText('Are you sure you want to remove this handle?'),
    ).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requestsTo(fetchMock, 'DELETE /api/v1/handles/8')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Remove @spacex' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Remove' }),
    );
    await waitFor(() =>
      expect(screen.queryByRole('listitem', { name: '@spacex' })).not.toBeInTheDocument(),
    );
    expect(screen.getByTestId('selected')).toHaveTextContent('nasa');
    expect(await screen.findByText('@spacex removed.')).toBeInTheDocument();
    expect(requestsTo(fetchMock, 'DELETE /api/v1/handles/8')).toHaveLength(1);
  });

  it('selects none after removing the last handle', async () => {
    const nasa = makeHandle({ id: 9, handle: 'nasa' });
    let serverHandles = [nasa];
    stubFetch({
      'GET /api/v1/handles': () => ok({ handles: serverHandles }),
      'DELETE /api/v1/handles/9': () => {
        serverHandles = [];
        return ok({ removed: true });
      },
    });
    renderPanel('nasa');
    await screen.findByRole('listitem', { name: '@nasa' });
    await removeAndConfirm('nasa');
    expect(await screen.findByText('No handles yet. Add your first handle above.')).toBeVisible();
    expect(screen.getByTestId('selected')).toHaveTextContent('none');
  });

  it('removes optimistically and puts the row back when the server refuses', async () => {
    const nasa = makeHandle({ id: 11, handle: 'nasa' });
    const remove = deferred<Response>();
    stubFetch({
      'GET /api/v1/handles': () => ok({ handles: [nasa] }),
      'DELETE /api/v1/handles/11': () => remove.promise,
    });
    renderPanel('nasa');
    await screen.findByRole('listitem', { name: '@nasa' });
    await removeAndConfirm('nasa');
    await waitFor(() =>
      expect(screen.queryByRole('listitem', { name: '@nasa' })).not.toBeInTheDocument(),
    );

    remove.resolve(fail(500, 'Database unavailable', 'INTERNAL'));
    expect(await screen.findByRole('listitem', { name: '@nasa' })).toBeInTheDocument();
    expect(await screen.findByRole('alert')).toHaveTextContent('❌ Database unavailable');
    expect(screen.getByTestId('selected')).toHaveTextContent('nasa');
  });

  it('shows the badge texts of every backfill state', async () => {
    const handles = [
      makeHandle({ handle: 'ready' }),
      makeHandle({
        handle: 'busy',
        backfill_status: 'collecting',
        backfill_progress: 42,
        backfill_completed_at: null,
        total_tweets_collected: 17,
      }),
      makeCollectingHandle({
        handle: 'scan',
        backfill_progress: 8,
        total_tweets_collected: 0,
      }),
      makeHandle({
        handle: 'fresh',
        backfill_status: 'pending',
        backfill_progress: 0,
        backfill_completed_at: null,
        total_tweets_collected: 0,
      }),
      makeHandle({
        handle: 'warming',
        backfill_status: 'collecting',
        backfill_progress: 0,
        backfill_completed_at: null,
        total_tweets_collected: 0,
      }),
      makeHandle({
        handle: 'broken',
        backfill_status: 'failed',
        backfill_completed_at: null,
        last_error: 'User not found on X',
      }),
    ];
    stubFetch({ 'GET /api/v1/handles': () => ok({ handles }), ...progressStubs(handles) });
    renderPanel();
    await screen.findByRole('listitem', { name: '@ready' });
    expect(within(rowOf('ready')).getByTestId('handle-status')).toHaveTextContent('Ready');
    expect(within(rowOf('busy')).getByTestId('handle-status')).toHaveTextContent('Collecting 42%');
    expect(within(rowOf('busy')).getByText('17 tweets found')).toBeInTheDocument();
    expect(within(rowOf('scan')).getByTestId('handle-status')).toHaveTextContent('Collecting 8%');
    expect(within(rowOf('scan')).getByText('Scanning...')).toBeInTheDocument();
    expect(within(rowOf('fresh')).getByTestId('handle-status')).toHaveTextContent(
      'Starting collection...',
    );
    expect(within(rowOf('warming')).getByTestId('handle-status')).toHaveTextContent(
      'Collecting data...',
    );
    expect(within(rowOf('broken')).getByTestId('handle-status')).toHaveTextContent('Failed');
    expect(within(rowOf('broken')).getByText('User not found on X')).toBeInTheDocument();
  });

  it("says 'Waiting for X' for a handle that waits for the credentials, never 'Ready'", async () => {
    const handles = [
      makeHandle({ handle: 'collected', last_error: 'Waiting for X credentials' }),
      makeHandle({
        handle: 'queued',
        backfill_status: 'pending',
        backfill_completed_at: null,
        total_tweets_collected: 0,
        last_error: 'Waiting for X credentials',
      }),
    ];
    stubFetch({ 'GET /api/v1/handles': () => ok({ handles }), ...progressStubs(handles) });
    renderPanel();
    await screen.findByRole('listitem', { name: '@collected' });
    for (const name of ['collected', 'queued']) {
      expect(within(rowOf(name)).getByTestId('handle-status')).toHaveTextContent('Waiting for X');
      expect(within(rowOf(name)).getByText('Waiting for X credentials')).toBeInTheDocument();
    }
  });

  it('offers the sample handles on phones while the list is empty; one click adds one', async () => {
    const serverHandles: Handle[] = [];
    const nasa = makeHandle({ id: 51, handle: 'nasa' });
    const fetchMock = stubFetch({
      'GET /api/v1/handles': () => ok({ handles: serverHandles }),
      'POST /api/v1/handles': () => {
        serverHandles.push(nasa);
        return ok({ handle: nasa }, 201);
      },
      ...progressStubs([nasa]),
    });
    // On wider screens the sidebar offers them (the panel's are hidden from `sm` up).
    setViewport(PHONE);
    renderPanel();
    const samples = await screen.findByTestId('sample-handles');
    expect(within(samples).getAllByRole('button', { name: /^Add @/ })).toHaveLength(8);
    await person().click(within(samples).getByRole('button', { name: 'Add @nasa' }));
    expect(await screen.findByText('@nasa added successfully!')).toBeInTheDocument();
    expect(requestsTo(fetchMock, 'POST /api/v1/handles')[0]?.body).toMatchObject({
      username: 'nasa',
    });
    expect(screen.getAllByTestId('handle-row')).toHaveLength(1);
    expect(screen.queryByTestId('sample-handles')).toBeNull();
  });

  it('follows the progress poll of a collecting handle', async () => {
    const busy = makeCollectingHandle({
      handle: 'busy',
      backfill_progress: 10,
      total_tweets_collected: 3,
    });
    stubFetch({
      'GET /api/v1/handles': () => ok({ handles: [busy] }),
      'GET /api/v1/handles/busy/backfill-progress': () =>
        ok({
          progress: 64,
          status: 'collecting',
          totalTweets: 40,
          message: 'Collecting',
          estimatedCompletion: null,
          hasData: true,
          lastUpdated: '2025-03-10T12:00:00.000Z',
          isComplete: false,
        }),
    });
    renderPanel();
    const row = await screen.findByRole('listitem', { name: '@busy' });
    expect(await within(row).findByText('Collecting 64%')).toBeInTheDocument();
    expect(within(row).getByText('40 tweets found')).toBeInTheDocument();
  });

  it("announces '@x data collection completed!' when the progress poll reaches 100 %", async () => {
    const busy = makeCollectingHandle({
      handle: 'busy',
      backfill_progress: 90,
      total_tweets_collected: 30,
    });
    const fetchMock = stubFetch({
      'GET /api/v1/handles': () => ok({ handles: [busy] }),
      'GET /api/v1/handles/busy/backfill-progress': completedProgress,
    });
    renderPanel();
    expect(await screen.findByText('@busy data collection completed!')).toBeInTheDocument();
    const row = rowOf('busy');
    expect(within(row).getByTestId('handle-status')).toHaveTextContent('Ready');
    // In the row, where its progress bar was: nothing above the list appears and pushes it down.
    expect(within(row).getByTestId('handle-completed')).toHaveTextContent(
      '@busy data collection completed!',
    );
    expect(within(row).queryByRole('progressbar')).toBeNull();
    expect(screen.queryByTestId('handle-message')).toBeNull();
    // The list is fetched again once the backfill ends.
    await waitFor(() => expect(requestsTo(fetchMock, 'GET /api/v1/handles').length).toBe(2));
  });

  it('leaves the selected handle’s completion to the page when told to', async () => {
    const busy = makeCollectingHandle({ handle: 'busy', backfill_progress: 90 });
    const other = makeCollectingHandle({ id: 2, handle: 'other', backfill_progress: 90 });
    stubFetch({
      'GET /api/v1/handles': () => ok({ handles: [busy, other] }),
      'GET /api/v1/handles/busy/backfill-progress': completedProgress,
      'GET /api/v1/handles/other/backfill-progress': completedProgress,
    });
    renderRoute('/', <Harness initial="busy" announceSelectedCompletion={false} />);
    expect(await screen.findByText('@other data collection completed!')).toBeInTheDocument();
    await waitFor(() =>
      expect(within(rowOf('busy')).getByTestId('handle-status')).toHaveTextContent('Ready'),
    );
    expect(screen.queryByText('@busy data collection completed!')).toBeNull();
  });

  describe('loading the list (5 attempts, then the error clears)', { timeout: 20_000 }, () => {
    /** Lets fake time pass, as long as the retry waits need. */
    const wait = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

    // The list's 30 s poll would start a load of its own amid the retries; without jitter the
    // retries come 2, 4, 8 and 16 s after each failure.
    beforeEach(() => {
      preferencesStore.update({ refreshInterval: 300_000 });
      vi.spyOn(Math, 'random').mockReturnValue(0.5);
    });
    afterEach(() => {
      preferencesStore.reset();
      vi.restoreAllMocks();
    });

    it("numbers the failed attempts, alerts 'attempt 5/5' with Retry, and clears it 10 s later", async () => {
      vi.useFakeTimers({ shouldAdvanceTime: true });
      let down = true;
      const fetchMock = stubFetch({
        'GET /api/v1/handles': () =>
          down
            ? fail(500, 'Database unavailable', 'INTERNAL')
            : ok({ handles: [makeHandle({ handle: 'nasa' })] }),
      });
      const listLoads = () => requestsTo(fetchMock, 'GET /api/v1/handles').length;
      renderPanel();

      // A quiet line under the loading state, no alert, while the load is tried again.
      expect(await screen.findByText('Failed to load handles (attempt 1/5)')).toBeVisible();
      expect(screen.getByText('Loading handles...')).toBeVisible();
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
      // 2 s doubling between the attempts.
      await wait(1_900);
      expect(screen.getByText('Failed to load handles (attempt 1/5)')).toBeVisible();
      expect(listLoads()).toBe(1);
      await wait(100);
      expect(await screen.findByText('Failed to load handles (attempt 2/5)')).toBeVisible();
      await wait(4_000);
      expect(await screen.findByText('Failed to load handles (attempt 3/5)')).toBeVisible();
      await wait(8_000);
      expect(await screen.findByText('Failed to load handles (attempt 4/5)')).toBeVisible();
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
      await wait(16_000);

      // After the fifth failure: the red alert, with the server's words and Retry.
      const alert = await screen.findByRole('alert');
      expect(within(alert).getByText('Failed to load handles (attempt 5/5)')).toBeVisible();
      expect(within(alert).getByText('Database unavailable')).toBeVisible();
      expect(within(alert).getByRole('button', { name: 'Retry' })).toBeVisible();
      expect(screen.queryByText('Failed to load handles (attempt 4/5)')).not.toBeInTheDocument();
      expect(screen.queryByText('Loading handles...')).not.toBeInTheDocument();
      expect(screen.queryByText('No handles yet. Add your first handle above.')).toBeNull();
      expect(listLoads()).toBe(5);

      // 10 s after the fifth failure the error clears and the list loads afresh by itself.
      down = false;
      await wait(9_000);
      expect(screen.getByRole('alert')).toBeVisible();
      expect(listLoads()).toBe(5);
      await wait(1_100);
      expect(await screen.findByRole('listitem', { name: '@nasa' })).toBeVisible();
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
      expect(listLoads()).toBe(6);
    });

    it('loads again on Retry, and stops waiting to clear the error once unmounted', async () => {
      vi.useFakeTimers({ shouldAdvanceTime: true });
      const fetchMock = stubFetch({
        'GET /api/v1/handles': () => fail(500, 'Database unavailable', 'INTERNAL'),
      });
      const listLoads = () => requestsTo(fetchMock, 'GET /api/v1/handles').length;
      const view = renderPanel();
      await screen.findByText('Failed to load handles (attempt 1/5)');
      await wait(30_000);
      const alert = await screen.findByRole('alert');
      expect(within(alert).getByText('Failed to load handles (attempt 5/5)')).toBeVisible();
      expect(listLoads()).toBe(5);

      await userEvent
        .setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) })
        .click(within(alert).getByRole('button', { name: 'Retry' }));
      // The new load starts over at attempt 1, and the alert waits for it to give up.
      expect(await screen.findByText('Failed to load handles (attempt 1/5)')).toBeVisible();
      expect(screen.getByText('Loading handles...')).toBeVisible();
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
      expect(listLoads()).toBe(6);
      await wait(30_000);
      expect(await screen.findByRole('alert')).toBeVisible();
      expect(listLoads()).toBe(10);

      view.unmount();
      await wait(30_000);
      expect(listLoads()).toBe(10);
    });
  });

  it('lists the recent tweets of a handle in a modal', async () => {
    const nasa = makeHandle({ handle: 'nasa' });
    stubFetch({
      'GET /api/v1/handles': () => ok({ handles: [nasa] }),
      'GET /api/v1/handles/nasa/tweets': () =>
        ok({ tweets: [], page: 1, limit: 20, total: 0, has_more: false }),
    });
    renderPanel();
    await screen.findByRole('listitem', { name: '@nasa' });
    await person().click(screen.getByRole('button', { name: 'Recent tweets from @nasa' }));
    const dialog = await screen.findByRole('dialog', { name: 'Recent tweets from @nasa' });
    expect(await within(dialog).findByText(/No tweets collected yet/)).toBeInTheDocument();
  });
});

import type { Handle } from '@perch/shared';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { preferencesStore } from '@/lib/preferences';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { makeHandle, progressStubs } from '../test/handle-fixtures';
import { HandlesSidebarList, SUGGESTED_HANDLES } from './handles-sidebar-list';

describe('HandlesSidebarList', () => {
  apiTestHooks();

  it('offers 8 sample handles when empty; one click adds it and selects it', async () => {
    const serverHandles: Handle[] = [];
    const github = makeHandle({
      id: 5,
      handle: 'github',
      backfill_status: 'pending',
      backfill_progress: 0,
      backfill_completed_at: null,
      total_tweets_collected: 0,
    });
    const fetchMock = stubFetch({
      'GET /api/v1/handles': () => ok({ handles: serverHandles }),
      'POST /api/v1/handles': () => {
        serverHandles.push(github);
        return ok({ handle: github }, 201);
      },
      ...progressStubs([github]),
    });
    const onSelect = vi.fn();
    renderRoute('/', <HandlesSidebarList selectedHandle={null} onSelect={onSelect} />);
    expect(await screen.findByText('No handles yet. Try one of these:')).toBeInTheDocument();
    expect(screen.getByText('Monitored Handles')).toBeInTheDocument();
    expect(screen.getByTestId('handle-count')).toHaveTextContent('0/10');
    const suggestions = screen.getAllByRole('button', { name: /^Add @/ });
    expect(suggestions.map((button) => button.textContent)).toEqual(
      SUGGESTED_HANDLES.map((name) => `@${name}`),
    );

    await userEvent
      .setup({ delay: null })
      .click(screen.getByRole('button', { name: 'Add @github' }));
    expect(onSelect).toHaveBeenCalledWith('github');
    await waitFor(() => expect(screen.getAllByTestId('sidebar-handle')).toHaveLength(1));
    expect(await screen.findByText('@github added successfully!')).toBeInTheDocument();
    expect(requestsTo(fetchMock, 'POST /api/v1/handles')[0]?.body).toEqual({
      username: 'github',
      backfill_days: 15,
      async: true,
    });
    expect(screen.queryByText('No handles yet. Try one of these:')).not.toBeInTheDocument();
  });

  it('lists handles with their badges, marks the selected one and selects on click', async () => {
    const handles = [
      makeHandle({ handle: 'nasa' }),
      makeHandle({
        handle: 'spacex',
        backfill_status: 'starting',
        backfill_progress: 0,
        backfill_completed_at: null,
        total_tweets_collected: 0,
      }),
    ];
    stubFetch({ 'GET /api/v1/handles': () => ok({ handles }), ...progressStubs(handles) });
    const onSelect = vi.fn();
    renderRoute('/', <HandlesSidebarList selectedHandle="NASA" onSelect={onSelect} />);
    const rows = await screen.findAllByTestId('sidebar-handle');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveAttribute('aria-current', 'true');
    expect(within(rows[0]!).getByText('Ready')).toBeInTheDocument();
    expect(within(rows[1]!).getByText('Starting collection...')).toBeInTheDocument();
    await userEvent.setup({ delay: null }).click(rows[1]!);
    expect(onSelect).toHaveBeenCalledWith('spacex');
    expect(screen.getByTestId('handle-count')).toHaveTextContent('2/10');
  });

  it('turns the count to the warning colour from 8 handles', async () => {
    const handles = Array.from({ length: 8 }, (_, index) => makeHandle({ handle: `h${index}` }));
    stubFetch({ 'GET /api/v1/handles': () => ok({ handles }) });
    renderRoute('/', <HandlesSidebarList selectedHandle={null} onSelect={() => undefined} />);
    await screen.findAllByTestId('sidebar-handle');
    const count = screen.getByTestId('handle-count');
    expect(count).toHaveTextContent('8/10');
    expect(count.getAttribute('style')).toContain('orange');
  });

  describe('loading the list (5 attempts, then the error clears)', { timeout: 20_000 }, () => {
    const wait = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

    beforeEach(() => {
      vi.useFakeTimers({ shouldAdvanceTime: true });
      // No poll amid the retries; no jitter: retries 2 and 4 s after the failures.
      preferencesStore.update({ refreshInterval: 300_000 });
      vi.spyOn(Math, 'random').mockReturnValue(0.5);
    });
    afterEach(() => {
      preferencesStore.reset();
      vi.restoreAllMocks();
      vi.useRealTimers();
    });

    it('says which attempt failed while it tries again, then lists the handles', async () => {
      let failures = 2;
      stubFetch({
        'GET /api/v1/handles': () => {
          if (failures === 0) return ok({ handles: [makeHandle({ handle: 'nasa' })] });
          failures -= 1;
          return fail(503, 'Service unavailable', 'UNAVAILABLE');
        },
      });
      renderRoute('/', <HandlesSidebarList selectedHandle={null} onSelect={() => undefined} />);

      const line = await screen.findByRole('status');
      expect(line).toHaveTextContent('Failed to load handles (attempt 1/5)');
      expect(screen.getByText('Loading handles...')).toBeVisible();
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
      // Neither the samples of an empty list meanwhile.
      expect(screen.queryByText('No handles yet. Try one of these:')).not.toBeInTheDocument();
      await wait(2_000);
      expect(await screen.findByRole('status')).toHaveTextContent(
        'Failed to load handles (attempt 2/5)',
      );
      await wait(4_000);
      expect(await screen.findAllByTestId('sidebar-handle')).toHaveLength(1);
      expect(screen.queryByRole('status')).not.toBeInTheDocument();
      expect(screen.queryByText('Loading handles...')).not.toBeInTheDocument();
    });

    it('alerts at once on a final failure, keeps it until Retry, then lists the handles', async () => {
      let answer: () => Response = () => fail(404, 'Not found', 'NOT_FOUND');
      const fetchMock = stubFetch({ 'GET /api/v1/handles': () => answer() });
      renderRoute('/', <HandlesSidebarList selectedHandle={null} onSelect={() => undefined} />);

      const alert = await screen.findByRole('alert');
      expect(within(alert).getByText('Failed to load handles (attempt 1/5)')).toBeVisible();
      expect(within(alert).getByText('Not found')).toBeVisible();
      expect(screen.queryByText('No handles yet. Try one of these:')).not.toBeInTheDocument();
      // Not retried, and not cleared after 10 s: only the fifth failure clears by itself.
      await wait(15_000);
      expect(screen.getByRole('alert')).toBeVisible();
      expect(requestsTo(fetchMock, 'GET /api/v1/handles')).toHaveLength(1);

      answer = () => ok({ handles: [makeHandle({ handle: 'nasa' })] });
      await userEvent
        .setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) })
        .click(within(alert).getByRole('button', { name: 'Retry' }));
      expect(await screen.findAllByTestId('sidebar-handle')).toHaveLength(1);
      expect(screen.queryByRole('alert')).not.toBeInTheDocument();
      expect(requestsTo(fetchMock, 'GET /api/v1/handles')).toHaveLength(2);
    });
  });
});

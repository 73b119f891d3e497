import { ADMIN_MESSAGES } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { PROCESSES_POLL_MS } from '@/lib/polling/intervals';
import { fail, requestsTo, stubFetch } from '@/test/fetch-stub';
import { processesQueryOptions } from '../api/get-processes';
import {
  makeEmailChallenge,
  makeProcess,
  makeSource,
  okWithMessage,
  sampleAdminServer,
} from '../test/admin-fixtures';
import { setUpAdminTests } from '../test/admin-test-setup';
import { renderAdmin, renderSampleAdmin, expectAdminError } from '../test/render-admin';

const NOW = new Date('2025-03-10T12:00:00.000Z');
const collectors = () => screen.getByRole('region', { name: 'Collectors' });
const row = (handle: string) => within(collectors()).getByRole('row', { name: `@${handle}` });

describe('Collectors', () => {
  setUpAdminTests({ now: NOW });

  const person = () => userEvent.setup({ delay: null, advanceTimers: vi.advanceTimersByTime });

  it('shows the source, its health and budget, and each collector with state, job, progress and polls', async () => {
    const server = sampleAdminServer({
      source: makeSource({
        name: 'x-api',
        health: 'degraded',
        health_reason: 'Recent collection errors.',
        rate_budget: { limit: 900, remaining: 420, resetAt: '2025-03-10T12:12:00.000Z' },
      }),
      processes: [
        makeProcess({ handle_id: 11, handle: 'nasa', last_error: 'Rate limited by X.' }),
        makeProcess({
          handle_id: 12,
          handle: 'spacex',
          state: 'paused',
          state_reason: 'Waiting for the rate limit to reset.',
          job: 'backfill',
          backfill_progress: 40,
          tweets_collected: 1234,
        }),
      ],
    });
    stubFetch(server.handlers);
    renderAdmin();
    const source = await within(collectors()).findByTestId('collector-source');
    expect(source).toHaveTextContent('Source: X API');
    expect(source).toHaveTextContent('Degraded');
    expect(source).toHaveTextContent('Recent collection errors.');
    expect(source).toHaveTextContent('Rate budget: 420 of 900 requests left, resets in 12 min');

    expect(row('nasa')).toHaveTextContent('Running');
    expect(row('nasa')).toHaveTextContent('Monitor');
    expect(row('nasa')).toHaveTextContent('last 1 min ago');
    expect(row('nasa')).toHaveTextContent('next in 30 s');
    expect(row('nasa')).toHaveTextContent('Rate limited by X.');
    expect(row('spacex')).toHaveTextContent('Paused');
    expect(row('spacex')).toHaveTextContent('Waiting for the rate limit to reset.');
    expect(row('spacex')).toHaveTextContent('Backfill');
    expect(row('spacex')).toHaveTextContent('40%');
    expect(row('spacex')).toHaveTextContent('1,234');
    expect(screen.queryByTestId('challenge-paused')).not.toBeInTheDocument();
  });

  it('gives plain admins no Stop or Start buttons', async () => {
    const server = sampleAdminServer();
    server.state.processes = [
      makeProcess({ handle_id: 11, handle: 'nasa' }),
      makeProcess({ handle_id: 12, handle: 'spacex', state: 'stopped' }),
    ];
    stubFetch(server.handlers);
    renderAdmin({ isSuperAdmin: false });
    await within(collectors()).findByTestId('collector-source');
    expect(row('spacex')).toHaveTextContent('Stopped');
    expect(within(collectors()).queryByRole('button', { name: /^(Stop|Start) @/ })).toBeNull();
  });

  it('lets a super admin stop a collector and start it again', async () => {
    const server = sampleAdminServer();
    const fetchMock = stubFetch(server.handlers);
    renderAdmin({ isSuperAdmin: true });
    await within(collectors()).findByTestId('collector-source');
    const user = person();

    await user.click(within(row('nasa')).getByRole('button', { name: 'Stop @nasa' }));
    expect(await screen.findByTestId('admin-success')).toHaveTextContent(
      ADMIN_MESSAGES.processStopped('nasa'),
    );
    await waitFor(() => expect(row('nasa')).toHaveTextContent('Stopped'));
    expect(row('nasa')).toHaveTextContent('Stopped by an admin.');
    expect(requestsTo(fetchMock, 'POST /api/v1/admin/processes/stop')[0]?.body).toEqual({
      handle_id: 11,
    });

    await user.click(within(row('nasa')).getByRole('button', { name: 'Start @nasa' }));
    expect(await screen.findByTestId('admin-success')).toHaveTextContent(
      ADMIN_MESSAGES.processStarted('nasa'),
    );
    await waitFor(() => expect(row('nasa')).toHaveTextContent('Running'));
    expect(requestsTo(fetchMock, 'POST /api/v1/admin/processes/start')[0]?.body).toEqual({
      handle_id: 11,
    });
  });

  it("prefers the server's success message to the default one", async () => {
    const serverMessage = 'Collection for @nasa stops once the page in flight is saved.';
    renderSampleAdmin({
      isSuperAdmin: true,
      answers: {
        'POST /api/v1/admin/processes/stop': () =>
          okWithMessage(
            { process: makeProcess({ handle_id: 11, handle: 'nasa', state: 'stopped' }) },
            serverMessage,
          ),
      },
    });
    await within(collectors()).findByTestId('collector-source');
    await person().click(within(row('nasa')).getByRole('button', { name: 'Stop @nasa' }));
    const banner = await screen.findByTestId('admin-success');
    expect(banner).toHaveTextContent(serverMessage);
    expect(banner).not.toHaveTextContent(ADMIN_MESSAGES.processStopped('nasa'));
  });

  it("reports a refused stop with the server's reason", async () => {
    renderSampleAdmin({
      isSuperAdmin: true,
      answers: {
        'POST /api/v1/admin/processes/stop': () =>
          fail(403, ADMIN_MESSAGES.superAdminRequired, 'FORBIDDEN'),
      },
    });
    await within(collectors()).findByTestId('collector-source');
    await person().click(screen.getByRole('button', { name: 'Stop @spacex' }));
    await expectAdminError(
      'Failed to stop the collector of @spacex.',
      ADMIN_MESSAGES.superAdminRequired,
    );
  });

  it('warns in yellow while a verification challenge pauses collection, linking a super admin to Settings', async () => {
    const challenge = makeEmailChallenge('AWAITING_INPUT');
    stubFetch(
      sampleAdminServer({ source: makeSource({ name: 'x-api', health: 'paused', challenge }) })
        .handlers,
    );
    const { router } = renderAdmin({ isSuperAdmin: true });
    const banner = await screen.findByTestId('challenge-paused');
    expect(banner).toHaveTextContent(ADMIN_MESSAGES.collectionPausedByChallenge);
    await person().click(within(banner).getByRole('link', { name: 'Enter the code in Settings' }));
    expect(router.state.location.pathname).toBe('/settings');
  });

  it('tells a plain admin that a super admin enters the code', async () => {
    const challenge = makeEmailChallenge('CODE_SUBMITTED');
    stubFetch(sampleAdminServer({ source: makeSource({ challenge }) }).handlers);
    renderAdmin({ isSuperAdmin: false });
    const banner = await screen.findByTestId('challenge-paused');
    expect(banner).toHaveTextContent('A super admin enters the code in Settings.');
    expect(within(banner).queryByRole('link')).toBeNull();
  });

  it('fetches the collectors again every 10 s', async () => {
    const { fetchMock } = renderSampleAdmin();
    await within(collectors()).findByTestId('collector-source');
    expect(requestsTo(fetchMock, 'GET /api/v1/admin/processes')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(PROCESSES_POLL_MS);
    await waitFor(() =>
      expect(requestsTo(fetchMock, 'GET /api/v1/admin/processes')).toHaveLength(2),
    );
    expect(processesQueryOptions().refetchIntervalInBackground).toBe(false);
  });

  it("shows 'Failed to load collectors.' with the spec's fallback", async () => {
    renderSampleAdmin({
      answers: {
        'GET /api/v1/admin/processes': () => new Response('', { status: 503 }),
      },
    });
    const error = await screen.findByTestId('collectors-error');
    expect(error).toHaveTextContent('Failed to load collectors.');
    expect(error).toHaveTextContent(ADMIN_MESSAGES.fetchProcessesFailed);
  });
});

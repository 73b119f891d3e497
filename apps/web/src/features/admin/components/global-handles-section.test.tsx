import { ADMIN_MESSAGES } from '@perch/shared';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { adminServer, makeSystemHandle, sampleAdminServer } from '../test/admin-fixtures';
import { setUpAdminTests } from '../test/admin-test-setup';
import { renderAdmin, renderSampleAdmin, expectAdminError } from '../test/render-admin';

const person = () => userEvent.setup({ delay: null });
const globalSection = () => screen.getByRole('region', { name: 'Global Handle Management' });

describe('Global Handle Management', () => {
  setUpAdminTests();

  it('lists every system handle with ID, created date, followers, status, tweets and users', async () => {
    renderSampleAdmin();
    const rows = await within(globalSection()).findAllByTestId('system-handle-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('@nasa');
    expect(rows[0]).toHaveTextContent('11');
    expect(rows[0]).toHaveTextContent('Mar 1, 2025');
    expect(rows[0]).toHaveTextContent('1,200');
    expect(rows[0]).toHaveTextContent('completed');
    expect(rows[0]).toHaveTextContent('340');
    expect(rows[1]).toHaveTextContent('in progress 40%');
  });

  it('deletes globally after the exact confirmation, with the success banner that leaves after 5 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = sampleAdminServer();
    const fetchMock = stubFetch(server.handlers);
    renderAdmin();
    await within(globalSection()).findAllByTestId('system-handle-row');
    const user = userEvent.setup({ delay: null, advanceTimers: vi.advanceTimersByTime });

    await user.click(screen.getByRole('button', { name: 'Global Delete @nasa' }));
    const dialog = await screen.findByRole('dialog', { name: 'Global Delete' });
    expect(within(dialog).getByTestId('confirm-message').textContent).toBe(
      'Are you sure you want to globally delete @nasa (ID: 11)? This will stop its scraper and remove it for all users.',
    );
    expect(within(dialog).getByTestId('confirm-message').textContent).toBe(
      ADMIN_MESSAGES.confirmGlobalDelete('nasa', 11),
    );
    await user.click(within(dialog).getByRole('button', { name: 'Global Delete' }));

    const banner = await screen.findByTestId('admin-success');
    expect(banner).toHaveTextContent('Successfully deleted handle @nasa.');
    await waitFor(() =>
      expect(within(globalSection()).getAllByTestId('system-handle-row')).toHaveLength(1),
    );
    expect(requestsTo(fetchMock, 'DELETE /api/v1/admin/handles/11')).toHaveLength(1);

    await act(() => vi.advanceTimersByTimeAsync(4_900));
    expect(screen.getByTestId('admin-success')).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(200));
    expect(screen.queryByTestId('admin-success')).not.toBeInTheDocument();
  });

  it('does nothing when the confirmation is cancelled', async () => {
    const { fetchMock } = renderSampleAdmin();
    await within(globalSection()).findAllByTestId('system-handle-row');
    const user = person();
    await user.click(screen.getByRole('button', { name: 'Global Delete @spacex' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Cancel' }),
    );
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requestsTo(fetchMock, 'DELETE /api/v1/admin/handles/12')).toHaveLength(0);
    expect(within(globalSection()).getAllByTestId('system-handle-row')).toHaveLength(2);
  });

  it("shows 'Failed to delete handle @x.' in red, with the fallback when the server says nothing", async () => {
    renderSampleAdmin({
      answers: {
        'DELETE /api/v1/admin/handles/11': () => new Response('', { status: 500 }),
      },
    });
    await within(globalSection()).findAllByTestId('system-handle-row');
    const user = person();
    await user.click(screen.getByRole('button', { name: 'Global Delete @nasa' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Global Delete' }),
    );
    const banner = await expectAdminError(
      ADMIN_MESSAGES.deleteHandleFailed('nasa'),
      ADMIN_MESSAGES.globalDeleteFailed(11),
    );
    expect(banner).toHaveAttribute('role', 'alert');
  });

  it('says so when no handle is in the system', async () => {
    stubFetch(adminServer().handlers);
    renderAdmin();
    expect(await screen.findByTestId('global-handles-empty')).toHaveTextContent(
      'No handles currently associated with any user.',
    );
  });

  it("shows 'Failed to load system handles.' and refreshes with 'Refresh System Handles'", async () => {
    let answer = () => fail(500, 'Database unavailable', 'INTERNAL');
    const fetchMock = stubFetch({
      ...adminServer().handlers,
      'GET /api/v1/admin/all-handles': () => answer(),
    });
    renderAdmin();
    const error = await screen.findByTestId('global-handles-error');
    expect(error).toHaveTextContent(ADMIN_MESSAGES.loadSystemHandlesFailed);
    expect(error).toHaveTextContent('Database unavailable');

    answer = () => ok({ handles: [makeSystemHandle({ id: 5, handle: 'esa' })] });
    await person().click(screen.getByRole('button', { name: 'Refresh System Handles' }));
    expect(await within(globalSection()).findByText('@esa')).toBeVisible();
    expect(requestsTo(fetchMock, 'GET /api/v1/admin/all-handles')).toHaveLength(2);
  });
});

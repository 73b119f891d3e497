import { ADMIN_MESSAGES } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fail, requestsTo } from '@/test/fetch-stub';
import { sampleAdminServer } from '../test/admin-fixtures';
import { setUpAdminTests } from '../test/admin-test-setup';
import { renderSampleAdmin, expectAdminError } from '../test/render-admin';
import { filterHandles } from './data-cleanup-section';

const person = () => userEvent.setup({ delay: null });
const cleanup = () => screen.getByRole('region', { name: 'Data Cleanup per Handle' });

describe('Data Cleanup per Handle', () => {
  setUpAdminTests();

  it('shows a plain admin the access-denied text and no Clear Data', async () => {
    renderSampleAdmin({ isSuperAdmin: false });
    await within(screen.getByRole('region', { name: 'Global Handle Management' })).findAllByTestId(
      'system-handle-row',
    );
    expect(cleanup()).toHaveTextContent('Access Denied. Super admin privileges required.');
    expect(within(cleanup()).queryByRole('table')).toBeNull();
    expect(within(cleanup()).queryByRole('textbox')).toBeNull();
    expect(screen.queryByRole('button', { name: /^Clear Data/ })).toBeNull();
  });

  it('gives a super admin a searchable table with ID, Handle, Created At and Actions', async () => {
    renderSampleAdmin({ isSuperAdmin: true });
    const table = await within(cleanup()).findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['ID', 'Handle', 'Created At', 'Actions']);
    expect(within(table).getAllByTestId('cleanup-row')).toHaveLength(2);
    const user = person();
    await user.type(within(cleanup()).getByRole('textbox', { name: 'Search handles' }), '@SPA');
    expect(within(table).getAllByTestId('cleanup-row')).toHaveLength(1);
    expect(within(table).getByTestId('cleanup-row')).toHaveTextContent('@spacex');
    await user.clear(within(cleanup()).getByRole('textbox', { name: 'Search handles' }));
    await user.type(within(cleanup()).getByRole('textbox', { name: 'Search handles' }), 'nobody');
    expect(within(cleanup()).getByText('No handle matches "nobody".')).toBeVisible();
  });

  it('clears the data after the confirmation that warns it cannot be undone', async () => {
    const { fetchMock } = renderSampleAdmin({ isSuperAdmin: true });
    await within(cleanup()).findByRole('table');
    const user = person();
    await user.click(within(cleanup()).getByRole('button', { name: 'Clear Data @nasa' }));
    const dialog = await screen.findByRole('dialog', { name: 'Clear data' });
    const question = within(dialog).getByTestId('confirm-message');
    expect(question.textContent).toBe(ADMIN_MESSAGES.confirmClearData('nasa'));
    expect(question).toHaveTextContent('This cannot be undone.');
    await user.click(within(dialog).getByRole('button', { name: 'Clear Data' }));
    expect(await screen.findByTestId('admin-success')).toHaveTextContent(
      'Successfully cleared data for handle @nasa. Scraper will re-initialize for it.',
    );
    expect(requestsTo(fetchMock, 'DELETE /api/v1/admin/handles/11/data')).toHaveLength(1);
    await waitFor(() =>
      expect(requestsTo(fetchMock, 'GET /api/v1/admin/all-handles')).toHaveLength(2),
    );
  });

  it("shows 'Failed to clear data for @x.' when the server refuses", async () => {
    renderSampleAdmin({
      isSuperAdmin: true,
      answers: {
        'DELETE /api/v1/admin/handles/12/data': () =>
          fail(403, ADMIN_MESSAGES.superAdminRequired, 'FORBIDDEN'),
      },
    });
    await within(cleanup()).findByRole('table');
    const user = person();
    await user.click(within(cleanup()).getByRole('button', { name: 'Clear Data @spacex' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Clear Data' }),
    );
    await expectAdminError(
      ADMIN_MESSAGES.clearDataForHandleFailed('spacex'),
      ADMIN_MESSAGES.superAdminRequired,
    );
  });

  it("shows 'Failed to fetch handles.' when the handles cannot load", async () => {
    renderSampleAdmin({
      isSuperAdmin: true,
      answers: {
        'GET /api/v1/admin/all-handles': () => fail(500, 'Database unavailable', 'INTERNAL'),
      },
    });
    expect(await screen.findByTestId('cleanup-error')).toHaveTextContent(
      ADMIN_MESSAGES.fetchHandlesFailed,
    );
  });

  it('matches a search on the name without its @, or on the ID', () => {
    const handles = sampleAdminServer().state.handles;
    expect(filterHandles(handles, ' @NASA ').map((handle) => handle.id)).toEqual([11]);
    expect(filterHandles(handles, '12').map((handle) => handle.handle)).toEqual(['spacex']);
    expect(filterHandles(handles, '')).toHaveLength(2);
  });
});

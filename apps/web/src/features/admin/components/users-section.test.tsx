import { ADMIN_MESSAGES } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fail, requestsTo, stubFetch } from '@/test/fetch-stub';
import { sampleAdminServer } from '../test/admin-fixtures';
import { setUpAdminTests } from '../test/admin-test-setup';
import { renderAdmin, section, renderSampleAdmin, expectAdminError } from '../test/render-admin';

const person = () => userEvent.setup({ delay: null });
const userButton = (name: RegExp) => screen.getByRole('button', { name });

/** Renders the admin page, waits for the three users and returns the person at the keyboard. */
async function renderWithUsersListed() {
  renderAdmin();
  await screen.findByRole('region', { name: 'Registered Users (3)' });
  return person();
}

describe('Registered Users and Monitored Handles', () => {
  setUpAdminTests();

  it('lists the users with their count, ID, join date, role and activity', async () => {
    renderSampleAdmin();
    const users = await screen.findByRole('region', { name: 'Registered Users (3)' });
    const rows = within(users).getAllByTestId('user-row');
    expect(rows).toHaveLength(3);
    expect(rows[2]).toHaveTextContent('grace');
    expect(rows[2]).toHaveTextContent('ID: 3 · Joined Mar 1, 2025');
    expect(rows[2]).toHaveTextContent('grace@example.com');
    expect(rows[2]).toHaveTextContent('never active');
    expect(rows[2]).toHaveTextContent('2 handles');
    expect(rows[0]).toHaveTextContent('Super admin');
    expect(
      within(section('Monitored Handles')).getByText(
        'Select a user to see the handles they monitor.',
      ),
    ).toBeVisible();
  });

  it("toggles the selection: clicking a user shows that user's handles, clicking again hides them", async () => {
    const server = sampleAdminServer();
    const fetchMock = stubFetch(server.handlers);
    const user = await renderWithUsersListed();

    await user.click(userButton(/^grace/));
    expect(userButton(/^grace/)).toHaveAttribute('aria-pressed', 'true');
    const handles = section('Monitored Handles');
    expect(within(handles).getByText('of grace (ID: 3)')).toBeVisible();
    const nasa = await within(handles).findByRole('listitem', { name: '@nasa' });
    expect(nasa).toHaveTextContent('ID: 11');
    expect(within(handles).getByRole('listitem', { name: '@spacex' })).toHaveTextContent('ID: 12');

    await user.click(userButton(/^linus/));
    expect(userButton(/^grace/)).toHaveAttribute('aria-pressed', 'false');
    expect(await within(handles).findByText(ADMIN_MESSAGES.noUserHandles)).toBeVisible();

    await user.click(userButton(/^linus/));
    expect(userButton(/^linus/)).toHaveAttribute('aria-pressed', 'false');
    expect(
      within(handles).getByText('Select a user to see the handles they monitor.'),
    ).toBeVisible();
    expect(requestsTo(fetchMock, 'GET /api/v1/admin/users/3/handles')).toHaveLength(1);
    expect(requestsTo(fetchMock, 'GET /api/v1/admin/users/2/handles')).toHaveLength(1);
  });

  it('selects a user from the keyboard', async () => {
    stubFetch(sampleAdminServer().handlers);
    const user = await renderWithUsersListed();
    userButton(/^grace/).focus();
    await user.keyboard('{Enter}');
    expect(userButton(/^grace/)).toHaveAttribute('aria-pressed', 'true');
    expect(await screen.findByRole('listitem', { name: '@nasa' })).toBeVisible();
    await user.keyboard(' ');
    expect(userButton(/^grace/)).toHaveAttribute('aria-pressed', 'false');
  });

  it('removes a handle from the user after a confirmation naming the handle, its ID and the user ID', async () => {
    const server = sampleAdminServer();
    const fetchMock = stubFetch(server.handlers);
    const user = await renderWithUsersListed();
    await user.click(userButton(/^grace/));
    await user.click(await screen.findByRole('button', { name: 'Delete @nasa' }));

    const dialog = await screen.findByRole('dialog', { name: 'Remove handle from user' });
    expect(within(dialog).getByTestId('confirm-message')).toHaveTextContent(
      ADMIN_MESSAGES.confirmRemoveFromUser('nasa', 11, 3),
    );
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requestsTo(fetchMock, 'DELETE /api/v1/admin/users/3/handles/11')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Delete @nasa' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }),
    );
    expect(await screen.findByTestId('admin-success')).toHaveTextContent(
      ADMIN_MESSAGES.handleRemovedFromUser('nasa'),
    );
    await waitFor(() =>
      expect(screen.queryByRole('listitem', { name: '@nasa' })).not.toBeInTheDocument(),
    );
    expect(screen.getByRole('listitem', { name: '@spacex' })).toBeVisible();
    expect(requestsTo(fetchMock, 'DELETE /api/v1/admin/users/3/handles/11')).toHaveLength(1);
  });

  it("shows 'Failed to remove handle @x from user.' with the server's reason when the removal fails", async () => {
    const server = sampleAdminServer();
    stubFetch({
      ...server.handlers,
      'DELETE /api/v1/admin/users/3/handles/11': () =>
        fail(404, ADMIN_MESSAGES.userDoesNotFollow, 'NOT_FOUND'),
    });
    const user = await renderWithUsersListed();
    await user.click(userButton(/^grace/));
    await user.click(await screen.findByRole('button', { name: 'Delete @nasa' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }),
    );
    const banner = await expectAdminError(
      ADMIN_MESSAGES.removeHandleFromUserFailed('nasa'),
      ADMIN_MESSAGES.userDoesNotFollow,
    );
    await user.click(within(banner).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByTestId('admin-error')).not.toBeInTheDocument();
  });

  it("shows 'Failed to load users.' and fetches again on Retry", async () => {
    const server = sampleAdminServer();
    let broken = true;
    const fetchMock = stubFetch({
      ...server.handlers,
      'GET /api/v1/admin/users': (request) =>
        broken
          ? fail(500, 'Database unavailable', 'INTERNAL')
          : server.handlers['GET /api/v1/admin/users']!(request),
    });
    renderAdmin();
    const error = await screen.findByTestId('users-error');
    expect(error).toHaveTextContent(ADMIN_MESSAGES.loadUsersFailed);
    expect(error).toHaveTextContent('Database unavailable');
    broken = false;
    await person().click(within(error).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('region', { name: 'Registered Users (3)' })).toBeVisible();
    expect(requestsTo(fetchMock, 'GET /api/v1/admin/users')).toHaveLength(2);
  });

  it("falls back to 'Failed to fetch users' when the server gives no reason", async () => {
    renderSampleAdmin({
      answers: {
        'GET /api/v1/admin/users': () => new Response('', { status: 502 }),
      },
    });
    const error = await screen.findByTestId('users-error');
    expect(error).toHaveTextContent(ADMIN_MESSAGES.loadUsersFailed);
    expect(error).toHaveTextContent(ADMIN_MESSAGES.fetchUsersFailed);
  });

  it("shows 'Failed to load handles for user N.' when the user's handles cannot load", async () => {
    renderSampleAdmin({
      answers: {
        'GET /api/v1/admin/users/3/handles': () => fail(500, 'Database unavailable', 'INTERNAL'),
      },
    });
    await screen.findByRole('region', { name: 'Registered Users (3)' });
    await person().click(userButton(/^grace/));
    expect(await screen.findByTestId('user-handles-error')).toHaveTextContent(
      ADMIN_MESSAGES.loadUserHandlesFailed(3),
    );
  });

  describe('roles', () => {
    it('offers no role select to a plain admin', async () => {
      renderSampleAdmin({ isSuperAdmin: false });
      await screen.findByRole('region', { name: 'Registered Users (3)' });
      expect(screen.queryByRole('combobox', { name: 'Role of grace' })).not.toBeInTheDocument();
    });

    it('lets a super admin change a role after a confirmation, but not their own', async () => {
      const server = sampleAdminServer();
      const fetchMock = stubFetch(server.handlers);
      renderAdmin({ isSuperAdmin: true, currentUserId: 1 });
      await screen.findByRole('region', { name: 'Registered Users (3)' });
      expect(screen.getByRole('combobox', { name: 'Role of ada' })).toBeDisabled();
      const select = screen.getByRole('combobox', { name: 'Role of grace' });
      expect(select).toHaveValue('user');
      const user = person();

      await user.selectOptions(select, 'admin');
      const dialog = await screen.findByRole('dialog', { name: 'Change role' });
      expect(dialog).toHaveTextContent('Make grace an admin?');
      await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
      await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
      expect(select).toHaveValue('user');

      await user.selectOptions(select, 'admin');
      await user.click(
        within(await screen.findByRole('dialog')).getByRole('button', { name: 'Change role' }),
      );
      expect(await screen.findByTestId('admin-success')).toHaveTextContent(
        ADMIN_MESSAGES.roleChanged('grace', 'admin'),
      );
      await waitFor(() =>
        expect(screen.getByRole('combobox', { name: 'Role of grace' })).toHaveValue('admin'),
      );
      expect(requestsTo(fetchMock, 'PUT /api/v1/admin/users/3/role')[0]?.body).toEqual({
        role: 'admin',
      });
    });

    it("reports a refused role change with the server's reason", async () => {
      renderSampleAdmin({
        isSuperAdmin: true,
        currentUserId: 1,
        answers: {
          'PUT /api/v1/admin/users/2/role': () =>
            fail(409, ADMIN_MESSAGES.lastSuperAdmin, 'LAST_SUPER_ADMIN'),
        },
      });
      await screen.findByRole('region', { name: 'Registered Users (3)' });
      const user = person();
      await user.selectOptions(screen.getByRole('combobox', { name: 'Role of linus' }), 'user');
      await user.click(
        within(await screen.findByRole('dialog')).getByRole('button', { name: 'Change role' }),
      );
      await expectAdminError('Failed to change the role of linus.', ADMIN_MESSAGES.lastSuperAdmin);
    });
  });
});

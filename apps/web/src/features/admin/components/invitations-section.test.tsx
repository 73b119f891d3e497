import { ADMIN_MESSAGES, INVITATION_DEFAULT_EXPIRY_DAYS } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fail, requestsTo, stubFetch } from '@/test/fetch-stub';
import { adminServer, makeInvitation, sampleAdminServer } from '../test/admin-fixtures';
import { setUpAdminTests } from '../test/admin-test-setup';
import { renderAdmin, renderSampleAdmin, expectAdminError } from '../test/render-admin';

const person = () => userEvent.setup({ delay: null });
const invitations = () => screen.getByRole('region', { name: 'Invitations' });
const row = (id: number) => within(invitations()).getByRole('row', { name: `Invitation #${id}` });

describe('Invitations', () => {
  setUpAdminTests();

  it('lists invitations by number with role, uses, creation, expiry, creator and state, never a code', async () => {
    stubFetch(
      adminServer({
        invitations: [
          makeInvitation({ id: 7, uses: 1, max_uses: 3 }),
          makeInvitation({
            id: 8,
            role: 'admin',
            state: 'expired',
            expires_at: '2025-01-02T00:00:00.000Z',
            created_by: null,
          }),
        ],
      }).handlers,
    );
    renderAdmin();
    await within(invitations()).findAllByTestId('invitation-row');
    expect(row(7)).toHaveTextContent('#7');
    expect(row(7)).toHaveTextContent('User');
    expect(row(7)).toHaveTextContent('1/3');
    expect(row(7)).toHaveTextContent('Mar 10, 2025');
    expect(row(7)).toHaveTextContent('Mar 17, 2025');
    expect(row(7)).toHaveTextContent('ada');
    expect(row(7)).toHaveTextContent('Active');
    expect(row(8)).toHaveTextContent('Admin');
    expect(row(8)).toHaveTextContent('Expired');
    expect(row(8)).toHaveTextContent('system');
    expect(within(row(8)).queryByRole('button', { name: /^Revoke/ })).toBeNull();
    expect(within(invitations()).queryByRole('button', { name: /^Copy/ })).toBeNull();
  });

  it('shows a new code once, with a copy button, until the admin is done with it', async () => {
    renderSampleAdmin({ isSuperAdmin: true });
    await within(invitations()).findAllByTestId('invitation-row');
    const user = person();
    await user.click(screen.getByRole('button', { name: 'Create invitation' }));

    const fresh = await screen.findByRole('region', { name: 'New invitation code' });
    expect(fresh).toHaveTextContent('New invitation for User: copy its code now');
    expect(fresh).toHaveTextContent('This is the only time the code is shown');
    expect(within(fresh).getByText('PERCH-NEW100').tagName).toBe('CODE');
    await user.click(
      within(fresh).getByRole('button', { name: 'Copy the code of invitation #100' }),
    );
    expect(
      await within(fresh).findByRole('button', { name: 'Copied the code of invitation #100' }),
    ).toHaveTextContent('Copied');
    expect(await navigator.clipboard.readText()).toBe('PERCH-NEW100');

    // The list names the new invitation by its number; its code is nowhere else.
    await waitFor(() => expect(row(100)).toHaveTextContent('Active'));
    expect(row(100)).not.toHaveTextContent('PERCH-NEW100');
    expect(screen.getAllByText('PERCH-NEW100')).toHaveLength(1);

    await user.click(within(fresh).getByRole('button', { name: 'Done' }));
    expect(screen.queryByRole('region', { name: 'New invitation code' })).toBeNull();
    expect(screen.queryByText('PERCH-NEW100')).toBeNull();
  });

  it('creates an invitation that never expires and shows it first', async () => {
    const server = sampleAdminServer();
    const fetchMock = stubFetch(server.handlers);
    renderAdmin({ isSuperAdmin: true });
    await within(invitations()).findAllByTestId('invitation-row');
    const user = person();
    const form = within(screen.getByRole('form', { name: 'Create invitation' }));

    await user.selectOptions(form.getByRole('combobox', { name: 'Role' }), 'admin');
    const uses = form.getByRole('textbox', { name: 'Uses (1-100)' });
    await user.clear(uses);
    await user.type(uses, '5');
    await user.click(form.getByRole('checkbox', { name: 'Never expires' }));
    expect(form.getByRole('textbox', { name: 'Expires after days (1-365)' })).toBeDisabled();
    await user.click(form.getByRole('button', { name: 'Create invitation' }));

    expect(await screen.findByTestId('admin-success')).toHaveTextContent(
      ADMIN_MESSAGES.invitationCreated,
    );
    expect(requestsTo(fetchMock, 'POST /api/v1/admin/invitations')[0]?.body).toEqual({
      role: 'admin',
      max_uses: 5,
      expires_in_days: null,
    });
    await waitFor(() =>
      expect(within(invitations()).getAllByTestId('invitation-row')[0]).toHaveTextContent('#100'),
    );
    expect(row(100)).toHaveTextContent('Never');
    expect(screen.getByRole('region', { name: 'New invitation code' })).toHaveTextContent(
      'New invitation for Admin',
    );
    expect(form.getByRole('textbox', { name: 'Expires after days (1-365)' })).toHaveValue(
      String(INVITATION_DEFAULT_EXPIRY_DAYS),
    );
  });

  it('offers a plain admin the user role only', async () => {
    const { fetchMock } = renderSampleAdmin({ isSuperAdmin: false });
    await within(invitations()).findAllByTestId('invitation-row');
    const form = within(screen.getByRole('form', { name: 'Create invitation' }));
    const role = form.getByRole('combobox', { name: 'Role' });
    expect(
      within(role)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['User']);
    expect(form.getByText(ADMIN_MESSAGES.invitationRoleForbidden)).toBeVisible();
    await person().click(form.getByRole('button', { name: 'Create invitation' }));
    await screen.findByTestId('admin-success');
    expect(requestsTo(fetchMock, 'POST /api/v1/admin/invitations')[0]?.body).toEqual({
      role: 'user',
      max_uses: 1,
      expires_in_days: INVITATION_DEFAULT_EXPIRY_DAYS,
    });
  });

  it('checks the form with the request schema before sending', async () => {
    const { fetchMock } = renderSampleAdmin();
    await within(invitations()).findAllByTestId('invitation-row');
    const user = person();
    const form = within(screen.getByRole('form', { name: 'Create invitation' }));
    await user.clear(form.getByRole('textbox', { name: 'Uses (1-100)' }));
    await user.click(form.getByRole('button', { name: 'Create invitation' }));
    expect(await form.findByText(ADMIN_MESSAGES.invitationUsesInvalid)).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/admin/invitations')).toHaveLength(0);
  });

  it("reports a refused creation with the server's reason", async () => {
    renderSampleAdmin({
      answers: {
        'POST /api/v1/admin/invitations': () =>
          fail(403, ADMIN_MESSAGES.invitationRoleForbidden, 'FORBIDDEN'),
      },
    });
    await within(invitations()).findAllByTestId('invitation-row');
    await person().click(screen.getByRole('button', { name: 'Create invitation' }));
    await expectAdminError(
      'Failed to create the invitation.',
      ADMIN_MESSAGES.invitationRoleForbidden,
    );
  });

  it('revokes an active code after a confirmation', async () => {
    const { fetchMock } = renderSampleAdmin();
    await within(invitations()).findAllByTestId('invitation-row');
    const user = person();
    await user.click(within(row(7)).getByRole('button', { name: 'Revoke invitation #7' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke invitation' });
    expect(dialog).toHaveTextContent(
      'Revoke invitation #7? Nobody will be able to register with it any more.',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    expect(await screen.findByTestId('admin-success')).toHaveTextContent(
      ADMIN_MESSAGES.invitationRevoked,
    );
    await waitFor(() => expect(row(7)).toHaveTextContent('Revoked'));
    expect(within(row(7)).queryByRole('button', { name: /^Revoke/ })).toBeNull();
    expect(requestsTo(fetchMock, 'DELETE /api/v1/admin/invitations/7')).toHaveLength(1);
  });

  it('keeps a plain admin from revoking an admin invitation', async () => {
    stubFetch(adminServer({ invitations: [makeInvitation({ id: 9, role: 'admin' })] }).handlers);
    renderAdmin({ isSuperAdmin: false });
    await within(invitations()).findAllByTestId('invitation-row');
    expect(within(row(9)).getByRole('button', { name: 'Revoke invitation #9' })).toBeDisabled();
  });

  it("shows 'Failed to load invitations.' when the list cannot load", async () => {
    renderSampleAdmin({
      answers: {
        'GET /api/v1/admin/invitations': () => fail(500, 'Database unavailable', 'INTERNAL'),
      },
    });
    const error = await screen.findByTestId('invitations-error');
    expect(error).toHaveTextContent('Failed to load invitations.');
    expect(error).toHaveTextContent('Database unavailable');
  });
});

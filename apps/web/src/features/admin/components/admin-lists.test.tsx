import { within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { setUpAdminTests } from '../test/admin-test-setup';
import { phoneScreen } from '../test/phone-screen';
import { section, renderSampleAdmin } from '../test/render-admin';

describe('admin lists', () => {
  setUpAdminTests();

  it('are tables on wide screens', async () => {
    renderSampleAdmin({ isSuperAdmin: true });
    await within(section('Global Handle Management')).findAllByTestId('system-handle-row');
    expect(within(section('Global Handle Management')).getByRole('table')).toBeInTheDocument();
    expect(within(section('Collectors')).getByRole('row', { name: '@nasa' })).toBeInTheDocument();
  });

  it('are cards with their buttons on phones', async () => {
    phoneScreen();
    renderSampleAdmin({ isSuperAdmin: true });

    const handles = section('Global Handle Management');
    const handleCards = await within(handles).findAllByTestId('system-handle-row');
    expect(within(handles).queryByRole('table')).toBeNull();
    expect(handleCards[0]).toHaveTextContent('@nasa');
    expect(handleCards[0]).toHaveTextContent('Followers1,200');
    expect(
      within(handleCards[0]!).getByRole('button', { name: 'Global Delete @nasa' }),
    ).toBeVisible();

    const collectors = section('Collectors');
    const nasa = await within(collectors).findByRole('listitem', { name: '@nasa' });
    expect(within(collectors).queryByRole('table')).toBeNull();
    expect(within(nasa).getByRole('button', { name: 'Stop @nasa' })).toBeVisible();

    const invitations = section('Invitations');
    const invitation = await within(invitations).findByRole('listitem', {
      name: 'Invitation #7',
    });
    expect(within(invitation).getByRole('button', { name: 'Revoke invitation #7' })).toBeVisible();

    const cleanup = section('Data Cleanup per Handle');
    const cleanupCards = await within(cleanup).findAllByTestId('cleanup-row');
    expect(within(cleanup).queryByRole('table')).toBeNull();
    expect(
      within(cleanupCards[0]!).getByRole('button', { name: 'Clear Data @nasa' }),
    ).toBeVisible();
  });
});

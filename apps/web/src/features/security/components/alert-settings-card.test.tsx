import { SECURITY_MESSAGES } from '@perch/shared';
import { waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, requestsTo, stubFetch } from '@/test/fetch-stub';
import { deferred } from '../test/deferred';
import { securityServer } from '../test/security-fixtures';
import { card, person, renderSecurity, withCsrfCookie } from '../test/render-security';
import { AlertSettingsCard } from './alert-settings-card';

const alerts = () => card('Security alerts');
const newDevice = () => within(alerts()).getByRole('switch', { name: /Sign-in from a new device/ });
const failedLogins = () => within(alerts()).getByRole('switch', { name: /^Failed sign-ins/ });

describe('Security alerts', () => {
  withCsrfCookie();

  it('flips a switch at once and saves only that switch', async () => {
    const fetchMock = stubFetch(securityServer().handlers);
    renderSecurity(<AlertSettingsCard />);
    await within(alerts()).findAllByRole('switch');
    expect(newDevice()).toBeChecked();
    expect(failedLogins()).toBeChecked();

    await person().click(newDevice());
    expect(newDevice()).not.toBeChecked();
    expect(await within(alerts()).findByTestId('alerts-outcome-success')).toHaveTextContent(
      SECURITY_MESSAGES.settingsSaved,
    );
    expect(requestsTo(fetchMock, 'PUT /api/v1/security/settings')[0]?.body).toEqual({
      alertOnNewDevice: false,
    });
    expect(newDevice()).not.toBeChecked();
    expect(failedLogins()).toBeChecked();
  });

  it('flips the switch back when saving fails, and says why', async () => {
    const held = deferred<Response>();
    stubFetch({
      ...securityServer().handlers,
      'PUT /api/v1/security/settings': () => held.promise,
    });
    renderSecurity(<AlertSettingsCard />);
    await within(alerts()).findAllByRole('switch');

    await person().click(failedLogins());
    expect(failedLogins()).not.toBeChecked();
    held.resolve(fail(503, 'The database is read-only right now.', 'READ_ONLY'));

    await waitFor(() => expect(failedLogins()).toBeChecked());
    const error = await within(alerts()).findByTestId('alerts-outcome-error');
    expect(error).toHaveTextContent('The setting could not be saved.');
    expect(error).toHaveTextContent('The database is read-only right now.');
  });
});

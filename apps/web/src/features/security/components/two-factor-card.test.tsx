import { SECURITY_MESSAGES } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, requestsTo, stubFetch } from '@/test/fetch-stub';
import {
  ISSUED_SECRET,
  QR_CODE_DATA_URL,
  RECOVERY_CODES,
  VALID_TOTP_CODE,
  makeSecuritySettings,
  securityServer,
} from '../test/security-fixtures';
import { card, person, renderSecurity, withCsrfCookie } from '../test/render-security';
import { recoveryCodesFile } from './recovery-codes';
import { TwoFactorCard } from './two-factor-card';

const twoFactor = () => card('Two-factor sign-in');
const status = () => within(twoFactor()).getByTestId('two-factor-status');

describe('Two-factor sign-in', () => {
  withCsrfCookie();

  it('sets up: QR code and key, a wrong code is refused, the right one shows the recovery codes once', async () => {
    const server = securityServer();
    const fetchMock = stubFetch(server.handlers);
    renderSecurity(<TwoFactorCard />);
    const user = person();
    await user.click(await within(twoFactor()).findByRole('button', { name: 'Turn on' }));

    const qr = await within(twoFactor()).findByRole('img', {
      name: 'QR code for your authenticator app',
    });
    expect(qr).toHaveAttribute('src', QR_CODE_DATA_URL);
    expect(within(twoFactor()).getByTestId('totp-secret')).toHaveTextContent(ISSUED_SECRET);
    expect(within(twoFactor()).getByText(SECURITY_MESSAGES.twoFactorSetupStarted)).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/security/2fa')[0]?.body).toEqual({ enabled: true });

    const code = within(twoFactor()).getByRole('textbox', { name: '6-digit code' });
    const verify = within(twoFactor()).getByRole('button', { name: 'Verify and turn on' });
    await user.type(code, '12a');
    await user.click(verify);
    expect(within(twoFactor()).getByText(SECURITY_MESSAGES.twoFactorCodeRequired)).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/security/2fa')).toHaveLength(1);

    await user.clear(code);
    await user.type(code, '111111');
    await user.click(verify);
    expect(
      await within(twoFactor()).findByText(SECURITY_MESSAGES.twoFactorCodeInvalid),
    ).toBeVisible();

    await user.clear(code);
    await user.type(code, `${VALID_TOTP_CODE.slice(0, 3)} ${VALID_TOTP_CODE.slice(3)}`);
    await user.click(verify);
    const codes = await within(twoFactor()).findByTestId('recovery-codes');
    expect(requestsTo(fetchMock, 'POST /api/v1/security/2fa').at(-1)?.body).toEqual({
      enabled: true,
      totpSecret: ISSUED_SECRET,
      code: VALID_TOTP_CODE,
    });
    expect(within(codes).getByText(SECURITY_MESSAGES.twoFactorEnabled)).toBeVisible();
    const list = within(codes).getByRole('list', { name: 'Your recovery codes' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(RECOVERY_CODES.length);
    expect(list).toHaveTextContent(RECOVERY_CODES[0]!);

    await user.click(within(codes).getByRole('button', { name: 'Copy the recovery codes' }));
    expect(await navigator.clipboard.readText()).toBe(RECOVERY_CODES.join('\n'));
    expect(within(codes).getByRole('button', { name: /^Copied/ })).toBeVisible();
    const download = within(codes).getByRole('link', { name: 'Download .txt' });
    expect(download).toHaveAttribute('download', 'perch-recovery-codes.txt');
    expect(decodeURIComponent(download.getAttribute('href')!.split(',')[1]!)).toBe(
      recoveryCodesFile(RECOVERY_CODES),
    );

    await user.click(within(codes).getByRole('button', { name: 'I have saved them' }));
    expect(within(twoFactor()).queryByTestId('recovery-codes')).toBeNull();
    expect(within(twoFactor()).queryByText(RECOVERY_CODES[0]!)).toBeNull();
    await waitFor(() => expect(status()).toHaveTextContent('On'));
    expect(within(twoFactor()).getByTestId('recovery-codes-remaining')).toHaveTextContent(
      '10 recovery codes left.',
    );
  });

  it('cancels a set-up without turning anything on', async () => {
    stubFetch(securityServer().handlers);
    renderSecurity(<TwoFactorCard />);
    const user = person();
    await user.click(await within(twoFactor()).findByRole('button', { name: 'Turn on' }));
    await within(twoFactor()).findByTestId('totp-secret');
    await user.click(within(twoFactor()).getByRole('button', { name: 'Cancel' }));
    expect(within(twoFactor()).queryByTestId('totp-secret')).toBeNull();
    expect(status()).toHaveTextContent('Off');
    expect(within(twoFactor()).getByRole('button', { name: 'Turn on' })).toBeVisible();
  });

  it('turns off with a current code or a recovery code', async () => {
    const server = securityServer({
      settings: makeSecuritySettings({ twoFactorEnabled: true, recoveryCodesRemaining: 1 }),
      recoveryCodes: [RECOVERY_CODES[4]!],
    });
    const fetchMock = stubFetch(server.handlers);
    renderSecurity(<TwoFactorCard />);
    expect(await within(twoFactor()).findByTestId('recovery-codes-remaining')).toHaveTextContent(
      '1 recovery code left.',
    );
    expect(status()).toHaveTextContent('On');
    const user = person();

    await user.click(within(twoFactor()).getByRole('button', { name: 'Turn off' }));
    const confirm = within(twoFactor()).getByRole('button', {
      name: 'Turn off two-factor sign-in',
    });
    await user.click(confirm);
    expect(within(twoFactor()).getByText(SECURITY_MESSAGES.twoFactorCodeRequired)).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/security/2fa')).toHaveLength(0);

    const code = within(twoFactor()).getByRole('textbox', { name: 'Code or recovery code' });
    await user.type(code, 'WRONG-CODE');
    await user.click(confirm);
    expect(
      await within(twoFactor()).findByText(SECURITY_MESSAGES.twoFactorCodeInvalid),
    ).toBeVisible();

    await user.clear(code);
    await user.type(code, RECOVERY_CODES[4]!);
    await user.click(confirm);
    expect(await within(twoFactor()).findByTestId('two-factor-outcome-success')).toHaveTextContent(
      SECURITY_MESSAGES.twoFactorDisabled,
    );
    expect(requestsTo(fetchMock, 'POST /api/v1/security/2fa').at(-1)?.body).toEqual({
      enabled: false,
      code: RECOVERY_CODES[4],
    });
    await waitFor(() => expect(status()).toHaveTextContent('Off'));
    expect(within(twoFactor()).getByRole('button', { name: 'Turn on' })).toBeVisible();
  });

  it('says why the set-up could not start', async () => {
    stubFetch({
      ...securityServer().handlers,
      'POST /api/v1/security/2fa': () => fail(500, '', 'INTERNAL'),
    });
    renderSecurity(<TwoFactorCard />);
    await person().click(await within(twoFactor()).findByRole('button', { name: 'Turn on' }));
    expect(await within(twoFactor()).findByTestId('two-factor-outcome-error')).toHaveTextContent(
      'Two-factor sign-in could not be changed.',
    );
  });

  it('says when the settings cannot be read, and is quiet about a 404', async () => {
    stubFetch({
      'GET /api/v1/security/settings': () => fail(500, 'Settings store offline.', 'INTERNAL'),
    });
    const first = renderSecurity(<TwoFactorCard />);
    const error = await within(twoFactor()).findByTestId('two-factor-error');
    expect(error).toHaveTextContent('Failed to load security settings');
    expect(error).toHaveTextContent('Settings store offline.');
    first.unmount();

    stubFetch({ 'GET /api/v1/security/settings': () => fail(404, 'Not found', 'NOT_FOUND') });
    renderSecurity(<TwoFactorCard />);
    expect(
      await within(twoFactor()).findByText('This server offers no security settings.'),
    ).toBeVisible();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

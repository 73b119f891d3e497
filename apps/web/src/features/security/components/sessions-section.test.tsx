import { SECURITY_MESSAGES } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { sampleSecurityServer } from '../test/security-fixtures';
import { card, person, renderSecurity, withCsrfCookie } from '../test/render-security';
import { SessionsSection } from './sessions-section';

const sessions = () => card('Sessions');
const rows = () => within(sessions()).queryAllByTestId('session-row');
const dialog = () => screen.getByRole('dialog');

/** Clicks Revoke on the session of this device and confirms in the dialog. */
async function revokeAndConfirm(device: string) {
  const user = person();
  await user.click(
    within(sessions()).getByRole('button', { name: `Revoke the session on ${device}` }),
  );
  await user.click(within(dialog()).getByRole('button', { name: 'Revoke' }));
}

describe('Sessions', () => {
  withCsrfCookie();

  it('lists device, IP and relative times, marking this device, which cannot be revoked', async () => {
    stubFetch(sampleSecurityServer().handlers);
    renderSecurity(<SessionsSection />);
    await within(sessions()).findAllByTestId('session-row');
    expect(rows()).toHaveLength(3);
    const current = within(sessions()).getByRole('row', { name: 'Firefox on macOS (This device)' });
    expect(current).toHaveTextContent('198.51.100.4');
    expect(current).toHaveTextContent('3 d ago');
    expect(current).toHaveTextContent('2 min ago');
    expect(within(current).queryByRole('button', { name: /Revoke/ })).toBeNull();
    const phone = within(sessions()).getByRole('row', { name: 'Safari on iOS' });
    expect(
      within(phone).getByRole('button', { name: 'Revoke the session on Safari on iOS' }),
    ).toBeVisible();
  });

  it('revokes another session after asking, and Cancel leaves it alone', async () => {
    const fetchMock = stubFetch(sampleSecurityServer().handlers);
    renderSecurity(<SessionsSection />);
    await within(sessions()).findAllByTestId('session-row');
    const user = person();
    const revoke = () =>
      user.click(
        within(sessions()).getByRole('button', { name: 'Revoke the session on Safari on iOS' }),
      );

    await revoke();
    expect(within(dialog()).getByTestId('confirm-message')).toHaveTextContent(
      'Sign out the session on Safari on iOS (203.0.113.9)?',
    );
    await user.click(within(dialog()).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(requestsTo(fetchMock, 'DELETE /api/v1/security/sessions/s-phone')).toHaveLength(0);

    await revoke();
    await user.click(within(dialog()).getByRole('button', { name: 'Revoke' }));
    expect(await within(sessions()).findByTestId('sessions-outcome-success')).toHaveTextContent(
      SECURITY_MESSAGES.sessionRevoked,
    );
    expect(requestsTo(fetchMock, 'DELETE /api/v1/security/sessions/s-phone')).toHaveLength(1);
    await waitFor(() => expect(rows()).toHaveLength(2));
    expect(within(sessions()).queryByText('Safari on iOS')).toBeNull();
  });

  it('signs out everywhere else after asking, with the server’s message', async () => {
    const fetchMock = stubFetch(sampleSecurityServer().handlers);
    renderSecurity(<SessionsSection />);
    await within(sessions()).findAllByTestId('session-row');
    const user = person();

    await user.click(within(sessions()).getByRole('button', { name: 'Sign out everywhere else' }));
    expect(within(dialog()).getByTestId('confirm-message')).toHaveTextContent(
      'Only this device stays signed in.',
    );
    await user.click(within(dialog()).getByRole('button', { name: 'Sign out everywhere else' }));

    expect(await within(sessions()).findByTestId('sessions-outcome-success')).toHaveTextContent(
      'Signed out 2 other sessions.',
    );
    expect(requestsTo(fetchMock, 'POST /api/v1/security/sessions/revoke-others')).toHaveLength(1);
    expect(
      requestsTo(fetchMock, 'POST /api/v1/security/sessions/revoke-others')[0]?.headers.get(
        'X-CSRF-Token',
      ),
    ).toBe('csrf');
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(
      within(sessions()).getByRole('button', { name: 'Sign out everywhere else' }),
    ).toBeDisabled();
  });

  it('says why a revocation failed', async () => {
    const server = sampleSecurityServer();
    stubFetch({
      ...server.handlers,
      'DELETE /api/v1/security/sessions/s-office': () =>
        fail(403, 'Invalid CSRF token.', 'CSRF_REFUSED'),
    });
    renderSecurity(<SessionsSection />);
    await within(sessions()).findAllByTestId('session-row');
    await revokeAndConfirm('Chrome on Windows');
    const error = await within(sessions()).findByTestId('sessions-outcome-error');
    expect(error).toHaveTextContent('Failed to revoke the session.');
    expect(error).toHaveTextContent('Invalid CSRF token.');
  });

  it('takes a 404 on revoke as done: the session is gone already', async () => {
    const server = sampleSecurityServer();
    stubFetch({
      ...server.handlers,
      'DELETE /api/v1/security/sessions/s-office': () => {
        server.state.sessions = server.state.sessions.filter((entry) => entry.id !== 's-office');
        return fail(404, SECURITY_MESSAGES.sessionNotFound, 'SESSION_NOT_FOUND');
      },
    });
    renderSecurity(<SessionsSection />);
    await within(sessions()).findAllByTestId('session-row');
    await revokeAndConfirm('Chrome on Windows');
    expect(await within(sessions()).findByTestId('sessions-outcome-success')).toBeVisible();
    await waitFor(() => expect(rows()).toHaveLength(2));
  });

  it("says 'Failed to load sessions' when the list cannot be read", async () => {
    stubFetch({ 'GET /api/v1/security/sessions': () => fail(500, '', 'INTERNAL') });
    renderSecurity(<SessionsSection />);
    const error = await within(sessions()).findByTestId('sessions-error');
    expect(error).toHaveTextContent('Failed to load sessions');
    expect(within(error).getByRole('button', { name: 'Retry' })).toBeVisible();
  });

  it('shows an empty list, and reads a 404 as one', async () => {
    stubFetch({ 'GET /api/v1/security/sessions': () => ok({ sessions: [] }) });
    const first = renderSecurity(<SessionsSection />);
    expect(await within(sessions()).findByTestId('sessions-empty')).toHaveTextContent(
      'No active sessions.',
    );
    first.unmount();

    stubFetch({ 'GET /api/v1/security/sessions': () => fail(404, 'Not found', 'NOT_FOUND') });
    renderSecurity(<SessionsSection />);
    expect(await within(sessions()).findByTestId('sessions-empty')).toBeVisible();
    expect(within(sessions()).queryByTestId('sessions-error')).toBeNull();
  });
});

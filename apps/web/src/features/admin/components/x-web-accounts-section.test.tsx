import { X_WEB_MESSAGES, type XWebAccounts } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fail, jsonResponse, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { setUpAdminTests } from '../test/admin-test-setup';
import { phoneScreen } from '../test/phone-screen';
import { renderAdminSection } from '../test/render-admin';
import { POOL_RUNNING, fromNow, makeXWebAccount, makeXWebPool } from '../test/x-web-fixtures';
import { formatDateTime, formatTime } from '@/lib/format';
import { X_WEB_STATUS_HINT, X_WEB_TEXTS } from '../utils/x-web-texts';
import { XWebAccountsSection } from './x-web-accounts-section';

const LIST = 'GET /api/v1/admin/x-web-accounts';
const ADD = 'POST /api/v1/admin/x-web-accounts';

const person = () => userEvent.setup({ delay: null });

const account = makeXWebAccount;

const POOL: XWebAccounts = {
  in_use: true,
  pool: POOL_RUNNING,
  accounts: [
    account({
      id: 1,
      limits: [
        {
          operation: 'UserTweetsAndReplies',
          limit: 50,
          remaining: 0,
          reset_at: '2025-03-10T12:15:00.000Z',
        },
        {
          operation: 'UserByScreenName',
          limit: 95,
          remaining: 80,
          reset_at: '2025-03-10T12:15:00.000Z',
        },
      ],
      resting_until: '2025-03-10T12:15:00.000Z',
      last_used_at: '2025-03-10T12:01:00.000Z',
    }),
    account({
      id: 2,
      username: 'tide_watch',
      auth_method: 'credentials',
      has_totp: true,
      status: 'LOCKED',
      status_reason: 'X locked the account: (326) Authorization: Denied by access control',
      last_error_at: '2025-03-10T11:00:00.000Z',
    }),
    account({
      id: 3,
      username: 'mail_wait',
      auth_method: 'credentials',
      status: 'AWAITING_INPUT',
      challenge_step: 'LoginAcid',
      challenge_since: '2025-03-10T11:30:00.000Z',
    }),
  ],
};

function renderSection(isSuperAdmin: boolean) {
  return renderAdminSection(<XWebAccountsSection isSuperAdmin={isSuperAdmin} />);
}

const region = () => screen.getByRole('region', { name: X_WEB_TEXTS.title });

/** Serves `pool` and renders the section until its accounts are listed. */
async function renderListed(pool: XWebAccounts, isSuperAdmin: boolean) {
  stubFetch({ [LIST]: () => ok(pool) });
  renderSection(isSuperAdmin);
  await within(await screen.findByRole('region', { name: X_WEB_TEXTS.title })).findAllByTestId(
    'x-web-account-row',
  );
}
const row = (username: string) =>
  within(region()).getByRole('row', { name: `Collector account @${username}` });

describe('X web collector accounts', () => {
  setUpAdminTests();

  it('shows each account with its status, limits left per operation and last error', async () => {
    await renderListed(POOL, false);
    expect(row('orbit_reader')).toHaveTextContent('Active');
    expect(row('orbit_reader')).toHaveTextContent('Timeline: 0 / 50');
    expect(row('orbit_reader')).toHaveTextContent('Lookup: 80 / 95');
    expect(row('orbit_reader')).toHaveTextContent(/Resting until/);
    expect(row('tide_watch')).toHaveTextContent('Locked');
    expect(row('tide_watch')).toHaveTextContent('2FA');
    expect(row('tide_watch')).toHaveTextContent('(326) Authorization: Denied by access control');
    expect(row('tide_watch')).toHaveTextContent('Last used never');
    expect(row('mail_wait')).toHaveTextContent('Waiting for code');
    expect(row('mail_wait')).toHaveTextContent(X_WEB_TEXTS.waitingStep('LoginAcid'));
    // Plain admins see the pool, without the form or the actions.
    expect(screen.queryByRole('form', { name: X_WEB_TEXTS.addTitle })).toBeNull();
    expect(within(region()).queryByRole('button', { name: /^Remove/ })).toBeNull();
  });

  it('adds an account by cookies after checking it, and by password with a TOTP secret', async () => {
    let pool = makeXWebPool();
    const fetchMock = stubFetch({
      [LIST]: () => ok(pool),
      [ADD]: (request) => {
        const body = request.body as { username: string; method: 'cookies' | 'credentials' };
        const added = account({ id: 9, username: body.username, auth_method: body.method });
        pool = makeXWebPool({ accounts: [added] });
        return jsonResponse(201, {
          success: true,
          message: X_WEB_MESSAGES.accountAdded(body.username),
          data: { account: added },
        });
      },
    });
    renderSection(true);
    expect(await screen.findByTestId('x-web-accounts-empty')).toHaveTextContent(X_WEB_TEXTS.empty);
    const user = person();
    const form = within(screen.getByRole('form', { name: X_WEB_TEXTS.addTitle }));
    await user.type(form.getByLabelText(X_WEB_TEXTS.usernameLabel), '@Orbit_Reader');
    await user.type(form.getByLabelText(X_WEB_TEXTS.authTokenLabel), 'not-a-token');
    await user.click(form.getByRole('button', { name: X_WEB_TEXTS.add }));
    expect(await form.findByText(X_WEB_MESSAGES.authTokenRequired)).toBeVisible();
    expect(form.getByText(X_WEB_MESSAGES.ct0Required)).toBeVisible();
    expect(requestsTo(fetchMock, ADD)).toHaveLength(0);

    await user.clear(form.getByLabelText(X_WEB_TEXTS.authTokenLabel));
    await user.type(form.getByLabelText(X_WEB_TEXTS.authTokenLabel), 'ab'.repeat(20));
    await user.type(form.getByLabelText(X_WEB_TEXTS.ct0Label), 'c'.repeat(32));
    await user.click(form.getByRole('button', { name: X_WEB_TEXTS.add }));
    expect(await screen.findByText(X_WEB_MESSAGES.accountAdded('orbit_reader'))).toBeVisible();
    expect(requestsTo(fetchMock, ADD)[0]?.body).toEqual({
      method: 'cookies',
      username: 'orbit_reader',
      auth_token: 'ab'.repeat(20),
      ct0: 'c'.repeat(32),
    });
    expect(await within(region()).findByTestId('x-web-account-row')).toHaveTextContent(
      '@orbit_reader',
    );
    expect(form.getByLabelText(X_WEB_TEXTS.authTokenLabel)).toHaveValue('');

    await user.click(form.getByRole('radio', { name: X_WEB_TEXTS.byPassword }));
    await user.type(form.getByLabelText(X_WEB_TEXTS.usernameLabel), 'tide_watch');
    await user.type(form.getByLabelText(X_WEB_TEXTS.passwordLabel), 'hunter2!');
    await user.type(form.getByLabelText(X_WEB_TEXTS.emailLabel), 'tide@example.com');
    await user.type(form.getByLabelText(X_WEB_TEXTS.totpLabel), '123');
    await user.click(form.getByRole('button', { name: X_WEB_TEXTS.add }));
    expect(await form.findByText(X_WEB_MESSAGES.totpInvalid)).toBeVisible();
    await user.clear(form.getByLabelText(X_WEB_TEXTS.totpLabel));
    await user.type(form.getByLabelText(X_WEB_TEXTS.totpLabel), 'jbsw y3dp ehpk 3pxp');
    await user.click(form.getByRole('button', { name: X_WEB_TEXTS.add }));
    await waitFor(() => expect(requestsTo(fetchMock, ADD)).toHaveLength(2));
    expect(requestsTo(fetchMock, ADD)[1]?.body).toEqual({
      method: 'credentials',
      username: 'tide_watch',
      password: 'hunter2!',
      email: 'tide@example.com',
      totp_secret: 'JBSWY3DPEHPK3PXP',
    });
  }, 15_000);

  it("says why an account could not be added, in the server's words", async () => {
    stubFetch({
      [LIST]: () => ok(makeXWebPool()),
      [ADD]: () => fail(409, X_WEB_MESSAGES.accountExists('dup'), 'X_WEB_ACCOUNT_EXISTS'),
    });
    renderSection(true);
    await screen.findByTestId('x-web-accounts-empty');
    const user = person();
    const form = within(screen.getByRole('form', { name: X_WEB_TEXTS.addTitle }));
    await user.type(form.getByLabelText(X_WEB_TEXTS.usernameLabel), 'dup');
    await user.type(form.getByLabelText(X_WEB_TEXTS.authTokenLabel), 'a'.repeat(40));
    await user.type(form.getByLabelText(X_WEB_TEXTS.ct0Label), 'b'.repeat(32));
    await user.click(form.getByRole('button', { name: X_WEB_TEXTS.add }));
    expect(await screen.findByText(X_WEB_MESSAGES.accountExists('dup'))).toBeVisible();
    expect(screen.getByText(X_WEB_TEXTS.addFailed)).toBeVisible();
    expect(form.getByLabelText(X_WEB_TEXTS.usernameLabel)).toHaveValue('dup');
  });

  it('resets an account that is out and removes one after asking', async () => {
    const fetchMock = stubFetch({
      [LIST]: () => ok(POOL),
      'POST /api/v1/admin/x-web-accounts/2/reset': () =>
        jsonResponse(200, {
          success: true,
          message: X_WEB_MESSAGES.accountReset('tide_watch'),
          data: { account: account({ id: 2, username: 'tide_watch', status: 'NEEDS_LOGIN' }) },
        }),
      'DELETE /api/v1/admin/x-web-accounts/1': () =>
        jsonResponse(200, {
          success: true,
          message: X_WEB_MESSAGES.accountRemoved('orbit_reader'),
          data: { id: 1, username: 'orbit_reader' },
        }),
    });
    renderSection(true);
    await within(await screen.findByRole('region', { name: X_WEB_TEXTS.title })).findAllByTestId(
      'x-web-account-row',
    );
    // Only accounts that are out can be reset.
    expect(within(row('orbit_reader')).queryByRole('button', { name: /^Reset/ })).toBeNull();
    const user = person();
    await user.click(within(row('tide_watch')).getByRole('button', { name: 'Reset @tide_watch' }));
    expect(await screen.findByText(X_WEB_MESSAGES.accountReset('tide_watch'))).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/admin/x-web-accounts/2/reset')).toHaveLength(1);

    await user.click(
      within(row('orbit_reader')).getByRole('button', { name: 'Remove @orbit_reader' }),
    );
    const dialog = await screen.findByRole('dialog', { name: X_WEB_TEXTS.removeTitle });
    expect(dialog).toHaveTextContent(X_WEB_TEXTS.confirmRemove('orbit_reader'));
    expect(requestsTo(fetchMock, 'DELETE /api/v1/admin/x-web-accounts/1')).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText(X_WEB_MESSAGES.accountRemoved('orbit_reader'))).toBeVisible();
    expect(requestsTo(fetchMock, 'DELETE /api/v1/admin/x-web-accounts/1')).toHaveLength(1);
  });

  it('stays out of the way on servers that do not use x-web, and says so when accounts are kept', async () => {
    let pool = makeXWebPool({ in_use: false });
    const fetchMock = stubFetch({ [LIST]: () => ok(pool) });
    const { unmount } = renderSection(true);
    await waitFor(() => expect(requestsTo(fetchMock, LIST)).toHaveLength(1));
    await waitFor(() =>
      expect(screen.queryByRole('region', { name: X_WEB_TEXTS.title })).toBeNull(),
    );
    unmount();

    pool = makeXWebPool({ in_use: false, accounts: [account()] });
    renderSection(true);
    expect(await screen.findByText(X_WEB_TEXTS.notInUse)).toBeVisible();
  });

  it('shows a loading state, then an error with a retry when the pool cannot be read', async () => {
    let answer = () => new Response('', { status: 500 });
    stubFetch({ [LIST]: () => answer() });
    renderSection(false);
    const error = await screen.findByTestId('x-web-accounts-error');
    expect(error).toHaveTextContent(X_WEB_TEXTS.loadFailed);
    answer = () => ok(POOL);
    await person().click(within(error).getByRole('button'));
    expect(await within(region()).findAllByTestId('x-web-account-row')).toHaveLength(3);
  });
});

/** An account X rate-limited a moment ago (still ACTIVE) and two that are out of the pool. */
const WHY_POOL = makeXWebPool({
  accounts: [
    account({
      id: 4,
      username: 'rate_hit',
      last_error: '(88) Rate limit exceeded',
      last_error_at: '2025-03-10T11:45:00.000Z',
    }),
    account({ id: 5, username: 'new_one', auth_method: 'credentials', status: 'NEEDS_LOGIN' }),
    account({
      id: 6,
      username: 'gone_stale',
      status: 'EXPIRED',
      status_reason: '(32) Could not authenticate you',
      last_error: '(32) Could not authenticate you',
      last_error_at: '2025-03-10T10:15:00.000Z',
    }),
  ],
});

function expectWhy(item: HTMLElement) {
  expect(item).toHaveTextContent('(88) Rate limit exceeded');
  expect(within(item).getByTestId('x-web-account-last-error')).toHaveTextContent(
    `${X_WEB_TEXTS.lastError}, ${formatDateTime('2025-03-10T11:45:00.000Z')}`,
  );
}

describe('X web collector accounts: why each account is where it is', () => {
  setUpAdminTests();

  it("shows every status's reason and the last error with its time in the table", async () => {
    await renderListed(WHY_POOL, false);
    expect(within(region()).getByRole('columnheader', { name: X_WEB_TEXTS.why })).toBeVisible();
    expectWhy(row('rate_hit'));
    expect(row('new_one')).toHaveTextContent('Not signed in yet');
    expect(row('new_one')).toHaveTextContent(X_WEB_STATUS_HINT.NEEDS_LOGIN!);
    // X's reason is written once, with the time X gave it.
    expect(row('gone_stale')).toHaveTextContent('Session ended');
    expect(within(row('gone_stale')).getByTestId('x-web-account-reason')).toHaveTextContent(
      '(32) Could not authenticate you',
    );
    expect(row('gone_stale')).toHaveTextContent(
      X_WEB_TEXTS.since(formatDateTime('2025-03-10T10:15:00.000Z')),
    );
    expect(within(row('gone_stale')).queryByTestId('x-web-account-last-error')).toBeNull();
  });

  it('shows them on phone cards too', async () => {
    phoneScreen();
    await renderListed(WHY_POOL, true);
    const card = (username: string) =>
      within(region()).getByRole('listitem', { name: `Collector account @${username}` });
    expect(within(region()).queryByRole('table')).toBeNull();
    expectWhy(card('rate_hit'));
    expect(card('rate_hit')).toHaveTextContent(X_WEB_TEXTS.why);
    expect(card('new_one')).toHaveTextContent(X_WEB_STATUS_HINT.NEEDS_LOGIN!);
    expect(card('gone_stale')).toHaveTextContent('(32) Could not authenticate you');
    expect(
      within(card('gone_stale')).getByRole('button', { name: 'Reset @gone_stale' }),
    ).toBeVisible();
  });
});

describe('X web collector accounts: the pool paused by X', () => {
  setUpAdminTests();

  it('says X refuses web requests, what X answered, since when and when Perch tries again', async () => {
    const until = fromNow(4 * 60_000 + 30_000);
    const since = fromNow(-3 * 60_000);
    stubFetch({
      [LIST]: () =>
        ok({
          ...POOL,
          pool: {
            paused_until: until,
            pause_reason: 'Cloudflare (HTTP 403: Just a moment...)',
            paused_since: since,
          },
        }),
    });
    renderSection(false);
    const banner = await screen.findByTestId('x-web-pool-paused');
    expect(within(region()).getByTestId('x-web-pool-paused')).toBe(banner);
    expect(banner).toHaveTextContent(X_WEB_MESSAGES.poolPaused);
    expect(banner).toHaveTextContent('Cloudflare (HTTP 403: Just a moment...)');
    expect(banner).toHaveTextContent(`Perch tries again at ${formatTime(until)} (in 4 min)`);
    expect(banner).toHaveTextContent(`Since ${formatDateTime(since)} (3 min ago)`);
    // A warning for the pool, not an error: the accounts keep their own states.
    expect(banner).toHaveAttribute('role', 'status');
    expect(row('orbit_reader')).toHaveTextContent('Active');
  });

  it('shows nothing while X lets requests through, nor once the pause is over', async () => {
    let pool: XWebAccounts = POOL;
    stubFetch({ [LIST]: () => ok(pool) });
    const { unmount } = renderSection(false);
    await within(await screen.findByRole('region', { name: X_WEB_TEXTS.title })).findAllByTestId(
      'x-web-account-row',
    );
    expect(screen.queryByTestId('x-web-pool-paused')).toBeNull();
    expect(screen.queryByText(X_WEB_MESSAGES.poolPaused)).toBeNull();
    unmount();

    pool = {
      ...POOL,
      pool: {
        paused_until: fromNow(-10_000),
        pause_reason: 'Cloudflare (HTTP 403: Just a moment...)',
        paused_since: fromNow(-90_000),
      },
    };
    renderSection(false);
    await within(await screen.findByRole('region', { name: X_WEB_TEXTS.title })).findAllByTestId(
      'x-web-account-row',
    );
    expect(screen.queryByTestId('x-web-pool-paused')).toBeNull();
  });
});

describe('X web collector accounts: the form leads with cookies', () => {
  setUpAdminTests();

  it('offers cookies first and by default, says where to find them, and warns before a password', async () => {
    stubFetch({ [LIST]: () => ok(makeXWebPool()) });
    renderSection(true);
    await screen.findByTestId('x-web-accounts-empty');
    const form = within(screen.getByRole('form', { name: X_WEB_TEXTS.addTitle }));
    const choices = form.getAllByRole('radio');
    expect(choices[0]).toHaveAccessibleName(X_WEB_TEXTS.byCookies);
    expect(choices[0]).toBeChecked();
    const help = form.getByTestId('x-web-cookies-help');
    expect(help).toHaveTextContent(X_WEB_TEXTS.cookiesRecommended);
    expect(help).toHaveTextContent(
      'developer tools > Application > Cookies > https://x.com and copy the values of auth_token and ct0',
    );
    expect(form.queryByText(X_WEB_MESSAGES.browserChecks)).toBeNull();

    await person().click(form.getByRole('radio', { name: X_WEB_TEXTS.byPassword }));
    const note = form.getByTestId('x-web-browser-checks');
    expect(note).toHaveTextContent(X_WEB_MESSAGES.browserChecks);
    expect(note).toBeVisible();
    // Read before the fields, not after them.
    const password = form.getByLabelText(X_WEB_TEXTS.passwordLabel);
    expect(note.compareDocumentPosition(password) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(form.queryByTestId('x-web-cookies-help')).toBeNull();
  });
});

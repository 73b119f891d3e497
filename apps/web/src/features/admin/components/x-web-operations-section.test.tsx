import { X_WEB_MESSAGES } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { okWithMessage } from '../test/admin-fixtures';
import { setUpAdminTests } from '../test/admin-test-setup';
import { phoneScreen } from '../test/phone-screen';
import { renderAdminSection, expectAdminError } from '../test/render-admin';
import {
  fromNow,
  makeXWebOperation,
  makeXWebOperations,
  makeXWebPool,
} from '../test/x-web-fixtures';
import { X_WEB_TEXTS } from '../utils/x-web-texts';
import { XWebOperationsSection } from './x-web-operations-section';

const POOL = 'GET /api/v1/admin/x-web-accounts';
const LIST = 'GET /api/v1/admin/x-web-operations';
const REFRESH = 'POST /api/v1/admin/x-web-operations/refresh';
const PIN = 'PUT /api/v1/admin/x-web-operations/UserTweets';
const UNPIN = 'DELETE /api/v1/admin/x-web-operations/UserTweetsAndReplies';

const person = () => userEvent.setup({ delay: null });

function renderSection(isSuperAdmin: boolean) {
  return renderAdminSection(<XWebOperationsSection isSuperAdmin={isSuperAdmin} />);
}

const region = () => screen.getByRole('region', { name: X_WEB_TEXTS.operationsTitle });
const row = (name: string) => within(region()).getByRole('row', { name: `Operation ${name}` });

async function rendered(isSuperAdmin: boolean) {
  renderSection(isSuperAdmin);
  await within(
    await screen.findByRole('region', { name: X_WEB_TEXTS.operationsTitle }),
  ).findAllByTestId('x-web-operation-row');
}

describe('X web operations', () => {
  setUpAdminTests();

  it('lists the five operations with their query id, source, sighting and switches', async () => {
    stubFetch({ [POOL]: () => ok(makeXWebPool()), [LIST]: () => ok(makeXWebOperations()) });
    await rendered(false);
    expect(within(region()).getAllByTestId('x-web-operation-row')).toHaveLength(5);
    expect(within(region()).getByTestId('x-web-operations-age')).toHaveTextContent(
      'Operations in use were read from x.com 5 min ago',
    );
    expect(within(region()).queryByTestId('x-web-operations-warning')).toBeNull();

    expect(row('UserByScreenName')).toHaveTextContent('G3KGOASz96M_Qu0CwSx1ZA');
    // Mantine's monospace font, by its variable (the test DOM has no theme to resolve it).
    expect(
      within(row('UserByScreenName')).getByText('G3KGOASz96M_Qu0CwSx1ZA').style.fontFamily,
    ).toBe('var(--mantine-font-family-monospace)');
    expect(row('UserByScreenName')).toHaveTextContent('From x.com');
    expect(row('UserByScreenName')).toHaveTextContent('5 min ago');
    expect(row('UserByScreenName')).toHaveTextContent('2 features');
    expect(row('UserByScreenName')).toHaveTextContent('1 field toggle');
    expect(row('UserTweetsAndReplies')).toHaveTextContent('Pinned');
    expect(row('UserTweetsAndReplies')).toHaveTextContent(
      X_WEB_TEXTS.bundleUses('bundleQueryId_0001'),
    );
    expect(row('UsersByRestIds')).toHaveTextContent('Last known');
    expect(row('UsersByRestIds')).toHaveTextContent('0 features');
    expect(row('TweetResultsByRestIds')).toHaveTextContent('File');
  });

  it('warns when the last look at x.com failed, or none was made, that the last-known set is in use', async () => {
    let list = makeXWebOperations({
      refresh_error: 'Cloudflare (HTTP 403: Just a moment...)',
      refreshed_at: fromNow(-2 * 60 * 60_000),
    });
    stubFetch({ [POOL]: () => ok(makeXWebPool()), [LIST]: () => ok(list) });
    const { unmount } = renderSection(false);
    const warning = await screen.findByTestId('x-web-operations-warning');
    expect(warning).toHaveTextContent(X_WEB_TEXTS.operationsReadFailed);
    expect(warning).toHaveTextContent('Cloudflare (HTTP 403: Just a moment...)');
    expect(warning).toHaveTextContent(X_WEB_TEXTS.operationsLastKnown);
    expect(warning).toHaveTextContent(`${X_WEB_TEXTS.operationsLastRead} 2 h ago`);
    expect(screen.queryByTestId('x-web-operations-age')).toBeNull();
    unmount();

    list = makeXWebOperations({
      refreshed_at: null,
      checked_at: null,
      operations: [makeXWebOperation({ name: 'UserTweets', source: 'default', seen_at: null })],
    });
    renderSection(false);
    const never = await screen.findByTestId('x-web-operations-warning');
    expect(never).toHaveTextContent(X_WEB_TEXTS.operationsNeverRead);
    expect(never).toHaveTextContent(X_WEB_TEXTS.operationsLastKnown);
  });

  it('gives plain admins the list without any action', async () => {
    stubFetch({ [POOL]: () => ok(makeXWebPool()), [LIST]: () => ok(makeXWebOperations()) });
    await rendered(false);
    expect(within(region()).queryByRole('button', { name: X_WEB_TEXTS.checkNow })).toBeNull();
    expect(within(region()).queryByRole('button', { name: /^Pin / })).toBeNull();
    expect(within(region()).queryByRole('button', { name: /^Unpin / })).toBeNull();
  });

  it('gives super admins Pin on every operation but those the file sets, and Unpin on pinned ones, on phones too', async () => {
    phoneScreen();
    stubFetch({ [POOL]: () => ok(makeXWebPool()), [LIST]: () => ok(makeXWebOperations()) });
    await rendered(true);
    expect(within(region()).queryByRole('table')).toBeNull();
    const card = (name: string) =>
      within(region()).getByRole('listitem', { name: `Operation ${name}` });
    expect(card('UserTweets')).toHaveTextContent('From x.com');
    expect(
      within(card('UserTweets')).getByRole('button', { name: 'Pin UserTweets' }),
    ).toBeVisible();
    expect(within(card('UserTweets')).queryByRole('button', { name: /^Unpin/ })).toBeNull();
    expect(
      within(card('UserTweetsAndReplies')).getByRole('button', {
        name: 'Unpin UserTweetsAndReplies',
      }),
    ).toBeVisible();
    expect(within(region()).getByRole('button', { name: X_WEB_TEXTS.checkNow })).toBeVisible();
    // The overrides file wins over a pin: its operations are changed in the file.
    const fromFile = card('TweetResultsByRestIds');
    expect(fromFile).toHaveTextContent(X_WEB_TEXTS.setInFile);
    expect(within(fromFile).queryByRole('button', { name: /^Pin/ })).toBeNull();
  });

  it("checks x.com's client on demand: busy while it runs, then the answer's message", async () => {
    let release: () => void = () => undefined;
    const checked = makeXWebOperations({ refreshed_at: fromNow(-1_000) });
    const fetchMock = stubFetch({
      [POOL]: () => ok(makeXWebPool()),
      [LIST]: () => ok(makeXWebOperations({ refreshed_at: fromNow(-3 * 60 * 60_000) })),
      [REFRESH]: () =>
        new Promise((resolve) => {
          release = () => resolve(okWithMessage(checked, X_WEB_MESSAGES.operationsRefreshed(2)));
        }),
    });
    await rendered(true);
    expect(within(region()).getByTestId('x-web-operations-age')).toHaveTextContent('3 h ago');
    const button = within(region()).getByRole('button', { name: X_WEB_TEXTS.checkNow });
    await person().click(button);
    await waitFor(() => expect(button).toBeDisabled());
    expect(requestsTo(fetchMock, REFRESH)).toHaveLength(1);
    release();
    expect(await screen.findByText(X_WEB_MESSAGES.operationsRefreshed(2))).toBeVisible();
    expect(screen.getByTestId('admin-success')).toBeVisible();
    await waitFor(() => expect(button).toBeEnabled());
    expect(within(region()).getByTestId('x-web-operations-age')).toHaveTextContent(
      'Operations in use were read from x.com just now',
    );
  });

  it('says so when the check failed', async () => {
    stubFetch({
      [POOL]: () => ok(makeXWebPool()),
      [LIST]: () => ok(makeXWebOperations()),
      [REFRESH]: () =>
        okWithMessage(
          makeXWebOperations({ refresh_error: 'x.com answered HTTP 503' }),
          X_WEB_MESSAGES.operationsRefreshed(0),
        ),
    });
    await rendered(true);
    await person().click(within(region()).getByRole('button', { name: X_WEB_TEXTS.checkNow }));
    await expectAdminError(X_WEB_TEXTS.checkFailed, 'x.com answered HTTP 503');
    expect(within(region()).getByTestId('x-web-operations-warning')).toHaveTextContent(
      'x.com answered HTTP 503',
    );
  });

  it('pins an operation after checking its values, with the server refusal under its field', async () => {
    let serverRefuses = true;
    const pinned = makeXWebOperations();
    const fetchMock = stubFetch({
      [POOL]: () => ok(makeXWebPool()),
      [LIST]: () => ok(makeXWebOperations()),
      [PIN]: () =>
        serverRefuses
          ? fail(400, X_WEB_MESSAGES.switchesInvalid, 'VALIDATION_ERROR')
          : okWithMessage(pinned, X_WEB_MESSAGES.operationPinned('UserTweets')),
    });
    await rendered(true);
    const user = person();
    await user.click(within(row('UserTweets')).getByRole('button', { name: 'Pin UserTweets' }));
    const dialog = await screen.findByRole('dialog', { name: X_WEB_TEXTS.pinTitle('UserTweets') });
    const form = within(dialog);
    const queryId = form.getByLabelText(X_WEB_TEXTS.queryIdLabel);
    // The query id in use is the starting point.
    expect(queryId).toHaveValue('E3opETHurmVJflFsUBVuUQ');

    await user.clear(queryId);
    await user.type(queryId, 'short');
    await user.type(form.getByLabelText(X_WEB_TEXTS.featuresLabel), 'not json');
    await user.click(form.getByRole('button', { name: X_WEB_TEXTS.pinSubmit }));
    expect(await form.findByText(X_WEB_MESSAGES.queryIdInvalid)).toBeVisible();
    expect(form.getByText(X_WEB_MESSAGES.switchesInvalid)).toBeVisible();
    expect(queryId).toHaveAttribute('aria-invalid', 'true');
    expect(requestsTo(fetchMock, PIN)).toHaveLength(0);

    await user.clear(queryId);
    await user.type(queryId, 'NewQueryId_2025-x');
    const features = form.getByLabelText(X_WEB_TEXTS.featuresLabel);
    await user.clear(features);
    await user.click(features);
    await user.paste('{"rweb_video_screen_enabled": true}');
    await user.click(form.getByRole('button', { name: X_WEB_TEXTS.pinSubmit }));
    await waitFor(() => expect(requestsTo(fetchMock, PIN)).toHaveLength(1));
    expect(requestsTo(fetchMock, PIN)[0]?.body).toEqual({
      query_id: 'NewQueryId_2025-x',
      features: { rweb_video_screen_enabled: true },
    });
    // The server's 400 shows under the field it is about, and the dialog stays open.
    expect(await form.findByText(X_WEB_MESSAGES.switchesInvalid)).toBeVisible();
    expect(features).toHaveAttribute('aria-invalid', 'true');
    expect(queryId).not.toHaveAttribute('aria-invalid', 'true');

    serverRefuses = false;
    await user.click(form.getByRole('button', { name: X_WEB_TEXTS.pinSubmit }));
    expect(await screen.findByText(X_WEB_MESSAGES.operationPinned('UserTweets'))).toBeVisible();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(requestsTo(fetchMock, PIN)).toHaveLength(2);
  }, 15_000);

  it('shows any other refusal of a pin in the dialog', async () => {
    stubFetch({
      [POOL]: () => ok(makeXWebPool()),
      [LIST]: () => ok(makeXWebOperations()),
      [PIN]: () => fail(404, X_WEB_MESSAGES.operationNotFound, 'NOT_FOUND'),
    });
    await rendered(true);
    const user = person();
    await user.click(within(row('UserTweets')).getByRole('button', { name: 'Pin UserTweets' }));
    const dialog = await screen.findByRole('dialog', { name: X_WEB_TEXTS.pinTitle('UserTweets') });
    await user.click(within(dialog).getByRole('button', { name: X_WEB_TEXTS.pinSubmit }));
    expect(await within(dialog).findByTestId('x-web-pin-error')).toHaveTextContent(
      X_WEB_MESSAGES.operationNotFound,
    );
  });

  it('unpins an operation only after asking', async () => {
    const fetchMock = stubFetch({
      [POOL]: () => ok(makeXWebPool()),
      [LIST]: () => ok(makeXWebOperations()),
      [UNPIN]: () =>
        okWithMessage(
          makeXWebOperations({
            operations: makeXWebOperations().operations.map((operation) =>
              operation.name === 'UserTweetsAndReplies'
                ? { ...operation, source: 'bundle', query_id: 'bundleQueryId_0001' }
                : operation,
            ),
          }),
          X_WEB_MESSAGES.operationUnpinned('UserTweetsAndReplies'),
        ),
    });
    await rendered(true);
    const user = person();
    const unpin = () =>
      within(row('UserTweetsAndReplies')).getByRole('button', {
        name: 'Unpin UserTweetsAndReplies',
      });

    await user.click(unpin());
    let dialog = await screen.findByRole('dialog', { name: X_WEB_TEXTS.unpinTitle });
    expect(dialog).toHaveTextContent(X_WEB_TEXTS.confirmUnpin('UserTweetsAndReplies'));
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(requestsTo(fetchMock, UNPIN)).toHaveLength(0);

    await user.click(unpin());
    dialog = await screen.findByRole('dialog', { name: X_WEB_TEXTS.unpinTitle });
    await user.click(within(dialog).getByRole('button', { name: X_WEB_TEXTS.unpin }));
    expect(
      await screen.findByText(X_WEB_MESSAGES.operationUnpinned('UserTweetsAndReplies')),
    ).toBeVisible();
    expect(requestsTo(fetchMock, UNPIN)).toHaveLength(1);
    // The answer is the list: the row follows x.com again at once.
    await waitFor(() => expect(row('UserTweetsAndReplies')).toHaveTextContent('From x.com'));
    expect(
      within(row('UserTweetsAndReplies')).queryByRole('button', { name: /^Unpin/ }),
    ).toBeNull();
  });

  it('shows a loading state, then an error with a retry when the list cannot be read', async () => {
    let answer = () => new Response('', { status: 500 });
    stubFetch({ [POOL]: () => ok(makeXWebPool()), [LIST]: () => answer() });
    renderSection(false);
    expect(await screen.findByLabelText('Loading X web operations')).toBeInTheDocument();
    const error = await screen.findByTestId('x-web-operations-error');
    expect(error).toHaveTextContent(X_WEB_TEXTS.operationsLoadFailed);
    answer = () => ok(makeXWebOperations());
    await person().click(within(error).getByRole('button'));
    expect(await within(region()).findAllByTestId('x-web-operation-row')).toHaveLength(5);
  });

  it('shows an empty list as such', async () => {
    stubFetch({
      [POOL]: () => ok(makeXWebPool()),
      [LIST]: () => ok(makeXWebOperations({ operations: [] })),
    });
    renderSection(false);
    expect(await screen.findByTestId('x-web-operations-empty')).toHaveTextContent(
      X_WEB_TEXTS.operationsEmpty,
    );
  });

  it('stays away on servers that do not use x-web, without asking for the operations', async () => {
    const fetchMock = stubFetch({
      [POOL]: () => ok(makeXWebPool({ in_use: false })),
      [LIST]: () => ok(makeXWebOperations()),
    });
    renderSection(true);
    await waitFor(() => expect(requestsTo(fetchMock, POOL)).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('region', { name: X_WEB_TEXTS.operationsTitle })).toBeNull();
    expect(requestsTo(fetchMock, LIST)).toHaveLength(0);
  });
});

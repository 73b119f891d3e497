import { FILTER_MESSAGES, type Handle, type NotificationFilter } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { fail, ok, requestsTo, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { makeHandle, progressStubs } from '../test/handle-fixtures';
import { HandlePanel } from './handle-panel';

const person = () => userEvent.setup({ delay: null });

const TERM_LISTS = {
  include: 'Notify only about tweets with',
  exclude: 'Never notify about tweets with',
} as const;

/** Types into one of the dialog's word lists. */
function typeTerms(
  user: ReturnType<typeof person>,
  dialog: HTMLElement,
  list: keyof typeof TERM_LISTS,
  text: string,
) {
  return user.type(within(dialog).getByRole('combobox', { name: TERM_LISTS[list] }), text);
}

/** The server: stores the filter it is sent (terms trimmed, as the real one does). */
function filterServer(handle: Handle): StubHandler {
  return (request) => {
    const body = request.body as Partial<NotificationFilter>;
    const filter: NotificationFilter = {
      include: (body.include ?? []).map((term) => term.trim()),
      exclude: (body.exclude ?? []).map((term) => term.trim()),
      media_only: body.media_only ?? false,
    };
    return ok({ handle: { ...handle, notification_filter: filter } });
  };
}

function renderPanel(handles: Handle[], put: StubHandler) {
  const fetchMock = stubFetch({
    'GET /api/v1/handles': () => ok({ handles }),
    ...progressStubs(handles),
    ...Object.fromEntries(
      handles.map((handle) => [`PUT /api/v1/handles/${handle.id}/notifications/filter`, put]),
    ),
  });
  renderRoute('/', <HandlePanel selectedHandle={null} onSelect={() => undefined} />);
  return fetchMock;
}

const openFilter = async (name: string) => {
  await person().click(
    await screen.findByRole('button', { name: `Notification filter for @${name}` }),
  );
  return screen.findByRole('dialog', { name: `Notification filter for @${name}` });
};

describe('notification filter editor', () => {
  apiTestHooks();

  it('shows no summary without a filter, and one after saving words and media only', async () => {
    const nasa = makeHandle({ id: 31, handle: 'nasa' });
    const fetchMock = renderPanel([nasa], filterServer(nasa));
    const row = (await screen.findAllByTestId('handle-row'))[0]!;
    expect(within(row).queryByTestId('filter-summary')).toBeNull();
    expect(
      within(row).getByRole('button', { name: 'Notification filter for @nasa' }),
    ).toHaveTextContent('Filter');

    const dialog = await openFilter('nasa');
    const user = person();
    await typeTerms(user, dialog, 'include', 'launch{Enter}');
    await typeTerms(user, dialog, 'include', 'free giveaway,');
    await typeTerms(user, dialog, 'exclude', 'ad{Enter}');
    await user.click(
      within(dialog).getByRole('switch', { name: 'Only tweets with a photo or video' }),
    );
    await user.click(within(dialog).getByRole('button', { name: 'Save filter' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(requestsTo(fetchMock, 'PUT /api/v1/handles/31/notifications/filter')[0]?.body).toEqual({
      include: ['launch', 'free giveaway'],
      exclude: ['ad'],
      media_only: true,
    });
    expect(await screen.findByText(FILTER_MESSAGES.saved('nasa'))).toBeVisible();
    expect(within(row).getByTestId('filter-summary')).toHaveTextContent(
      'With “launch” or “free giveaway” · without “ad” · media only',
    );
    expect(
      within(row).getByRole('button', { name: 'Notification filter for @nasa' }),
    ).toHaveTextContent('Edit filter');
  });

  it('opens with the stored filter, and Clear filter empties it', async () => {
    const nasa = makeHandle({
      id: 32,
      handle: 'nasa',
      notification_filter: { include: [], exclude: ['giveaway'], media_only: false },
    });
    const fetchMock = renderPanel([nasa], filterServer(nasa));
    expect(await screen.findByTestId('filter-summary')).toHaveTextContent('Without “giveaway”');
    const dialog = await openFilter('nasa');
    expect(within(dialog).getByText('giveaway')).toBeVisible();
    await person().click(within(dialog).getByRole('button', { name: 'Clear filter' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(requestsTo(fetchMock, 'PUT /api/v1/handles/32/notifications/filter')[0]?.body).toEqual({
      include: [],
      exclude: [],
      media_only: false,
    });
    expect(await screen.findByText(FILTER_MESSAGES.cleared('nasa'))).toBeVisible();
    expect(screen.queryByTestId('filter-summary')).toBeNull();
  });

  it('checks the rules before sending: a word in both lists is refused in the dialog', async () => {
    const nasa = makeHandle({ id: 33, handle: 'nasa' });
    const fetchMock = renderPanel([nasa], filterServer(nasa));
    const dialog = await openFilter('nasa');
    const user = person();
    await typeTerms(user, dialog, 'include', 'Launch{Enter}');
    await typeTerms(user, dialog, 'exclude', 'launch{Enter}');
    await user.click(within(dialog).getByRole('button', { name: 'Save filter' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      FILTER_MESSAGES.termInBoth('Launch'),
    );
    expect(requestsTo(fetchMock, 'PUT /api/v1/handles/33/notifications/filter')).toHaveLength(0);
    // Nothing saved: the dialog stays, Cancel closes it without a summary.
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.queryByTestId('filter-summary')).toBeNull();
  });

  it("shows the server's refusal in the dialog, and a generic text when it fails", async () => {
    const nasa = makeHandle({ id: 34, handle: 'nasa' });
    let answer: () => Response = () => fail(400, FILTER_MESSAGES.termTooLong, 'VALIDATION_ERROR');
    renderPanel([nasa], () => answer());
    const dialog = await openFilter('nasa');
    const user = person();
    await typeTerms(user, dialog, 'exclude', 'ad{Enter}');
    await user.click(within(dialog).getByRole('button', { name: 'Save filter' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(FILTER_MESSAGES.termTooLong);
    answer = () => fail(500, 'Internal error', 'INTERNAL');
    await user.click(within(dialog).getByRole('button', { name: 'Save filter' }));
    await waitFor(() =>
      expect(within(dialog).getByRole('alert')).toHaveTextContent(FILTER_MESSAGES.saveFailed),
    );
    expect(screen.getByRole('dialog')).toBeVisible();
  });
});

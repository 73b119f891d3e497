import { FEED_MESSAGES, type Feeds } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { makeDelivery, settingsServer } from '../test/settings-fixtures';
import { findCard, openDeliveryLog, renderSettings } from '../test/render-settings';

const person = () => userEvent.setup({ delay: null });

function feedsWith(token: string, handles: string[]): Feeds {
  return {
    createdAt: '2025-03-10T12:00:00.000Z',
    feeds: handles.map((handle) => ({
      handle,
      rssUrl: `http://perch.test/api/v1/feeds/${token}/${handle}.rss`,
      jsonUrl: `http://perch.test/api/v1/feeds/${token}/${handle}.json`,
    })),
  };
}

describe('Feeds card', () => {
  apiTestHooks();

  it("lists each handle's RSS and JSON addresses and copies one", async () => {
    const server = settingsServer();
    stubFetch({
      ...server.handlers,
      'GET /api/v1/settings/feeds': () => ok(feedsWith('tok_one', ['nasa', 'esa'])),
    });
    renderSettings();
    const card = await findCard('feeds-card');
    const rss = await within(card).findByRole('textbox', { name: 'RSS address for @nasa' });
    expect(rss).toHaveValue('http://perch.test/api/v1/feeds/tok_one/nasa.rss');
    expect(within(card).getByRole('textbox', { name: 'JSON Feed address for @esa' })).toHaveValue(
      'http://perch.test/api/v1/feeds/tok_one/esa.json',
    );
    expect(within(card).getAllByTestId('feed-row')).toHaveLength(2);
    // user-event stands in for the clipboard.
    await person().click(
      within(card).getByRole('button', { name: 'Copy the JSON Feed address for @nasa' }),
    );
    expect(await navigator.clipboard.readText()).toBe(
      'http://perch.test/api/v1/feeds/tok_one/nasa.json',
    );
    expect(await screen.findByText('Copied')).toBeVisible();
  });

  it('regenerates only after confirming, then shows the new addresses', async () => {
    const server = settingsServer();
    const fetchMock = stubFetch({
      ...server.handlers,
      'GET /api/v1/settings/feeds': () => ok(feedsWith('tok_old', ['nasa'])),
      'POST /api/v1/settings/feeds/regenerate': () => ok(feedsWith('tok_new', ['nasa'])),
    });
    renderSettings();
    const card = await findCard('feeds-card');
    const rss = await within(card).findByRole('textbox', { name: 'RSS address for @nasa' });
    const user = person();

    await user.click(within(card).getByRole('button', { name: 'Regenerate' }));
    const dialog = await screen.findByRole('dialog', { name: 'Make new feed addresses?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(requestsTo(fetchMock, 'POST /api/v1/settings/feeds/regenerate')).toHaveLength(0);

    await user.click(within(card).getByRole('button', { name: 'Regenerate' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Make new addresses' }),
    );
    expect(await within(card).findByRole('status')).toHaveTextContent(FEED_MESSAGES.regenerated);
    expect(requestsTo(fetchMock, 'POST /api/v1/settings/feeds/regenerate')).toHaveLength(1);
    await waitFor(() => expect(rss).toHaveValue('http://perch.test/api/v1/feeds/tok_new/nasa.rss'));
  });

  it('says what to do without handles, and offers Retry when the list fails', async () => {
    const server = settingsServer();
    let answer = () => fail(500, 'Internal error', 'INTERNAL');
    stubFetch({ ...server.handlers, 'GET /api/v1/settings/feeds': () => answer() });
    renderSettings();
    const card = await findCard('feeds-card');
    const error = await within(card).findByTestId('feeds-error', undefined, { timeout: 15_000 });
    answer = () => ok(feedsWith('tok', []));
    await person().click(within(error).getByRole('button', { name: 'Retry' }));
    expect(await within(card).findByTestId('feeds-empty')).toHaveTextContent(
      'No feeds yet: add a handle on the dashboard and its feeds appear here.',
    );
  }, 20_000);

  it("shows the server's reason when the addresses cannot be read, and Regenerate still works", async () => {
    const server = settingsServer();
    stubFetch({
      ...server.handlers,
      'GET /api/v1/settings/feeds': () =>
        fail(409, FEED_MESSAGES.unreadable, 'FEED_TOKEN_UNREADABLE'),
      'POST /api/v1/settings/feeds/regenerate': () => ok(feedsWith('tok_new', ['nasa'])),
    });
    renderSettings();
    const card = await findCard('feeds-card');
    expect(await within(card).findByTestId('feeds-error')).toHaveTextContent(
      FEED_MESSAGES.unreadable,
    );
    const user = person();
    await user.click(within(card).getByRole('button', { name: 'Regenerate' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Make new addresses' }),
    );
    expect(await within(card).findByRole('textbox', { name: 'RSS address for @nasa' })).toHaveValue(
      'http://perch.test/api/v1/feeds/tok_new/nasa.rss',
    );
  });
});

describe('Delivery log: filtered rows', () => {
  apiTestHooks();

  it('shows a tweet held back by a filter as Filtered, with the reason as a note', async () => {
    const { log } = await openDeliveryLog([
      makeDelivery({
        status: 'filtered',
        sentAt: null,
        note: 'Held back by your filter: contains "giveaway"',
      }),
    ]);
    const row = await within(log).findByRole('listitem', {
      name: 'Telegram message for @nasa: Filtered',
    });
    expect(within(row).getByTestId('delivery-note')).toHaveTextContent(
      'Held back by your filter: contains "giveaway"',
    );
  });
});

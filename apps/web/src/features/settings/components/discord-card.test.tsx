import { DISCORD_MESSAGE_CLEAR_MS, SETTINGS_MESSAGES } from '@perch/shared';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { deferred } from '../test/deferred';
import { makeSettings, settingsServer } from '../test/settings-fixtures';
import { findCard, openCard, renderSettings } from '../test/render-settings';

const person = () => userEvent.setup({ delay: null });
const USER_ID = '80351110224678912';

describe('Discord card', () => {
  apiTestHooks();

  it('needs a User ID to test, and a valid one to save', async () => {
    const { fetchMock, card } = await openCard('discord-card');
    const user = person();
    await user.click(within(card).getByRole('button', { name: 'Test' }));
    expect(within(card).getByText(SETTINGS_MESSAGES.discordUserIdRequiredForTest)).toBeVisible();
    await user.click(within(card).getByRole('button', { name: 'Save' }));
    expect(within(card).getByText(SETTINGS_MESSAGES.discordUserIdRequired)).toBeVisible();
    await user.type(within(card).getByLabelText('Discord User ID'), 'ada#1234');
    await user.click(within(card).getByRole('button', { name: 'Save' }));
    expect(within(card).getByText(SETTINGS_MESSAGES.discordUserIdInvalid)).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/settings')).toHaveLength(0);
    expect(requestsTo(fetchMock, 'POST /api/v1/settings/discord/test')).toHaveLength(0);
  });

  it('saves, and its messages stay in the card and clear after 4 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { fetchMock, card } = await openCard('discord-card');
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) });
    await user.type(within(card).getByLabelText('Discord User ID'), ` ${USER_ID} `);
    await user.click(within(card).getByRole('button', { name: 'Save' }));

    const message = await within(card).findByTestId('discord-message');
    expect(message).toHaveTextContent(SETTINGS_MESSAGES.discordSaved);
    expect(requestsTo(fetchMock, 'POST /api/v1/settings')[0]?.body).toEqual({
      discord_user_id: USER_ID,
    });
    expect(within(card).getByText(USER_ID)).toBeVisible();
    // Not on the page's banners.
    expect(screen.queryByTestId('settings-success')).toBeNull();

    act(() => vi.advanceTimersByTime(DISCORD_MESSAGE_CLEAR_MS - 100));
    expect(within(card).getByTestId('discord-message')).toBeVisible();
    act(() => vi.advanceTimersByTime(100));
    expect(within(card).queryByTestId('discord-message')).toBeNull();
    expect(DISCORD_MESSAGE_CLEAR_MS).toBe(4_000);
  });

  it('tests the saved id: success, then a failure with what Discord said, each for 4 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = settingsServer(makeSettings({ discord_user_id: USER_ID }));
    let answer = () => ok({ status: 'ok', channel: 'discord' });
    const fetchMock = stubFetch({
      ...server.handlers,
      'POST /api/v1/settings/discord/test': () => answer(),
    });
    renderSettings();
    const card = await findCard('discord-card');
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime.bind(vi) });
    await user.click(within(card).getByRole('button', { name: 'Test' }));
    expect(await within(card).findByRole('status')).toHaveTextContent(
      SETTINGS_MESSAGES.discordTestSuccess,
    );
    expect(requestsTo(fetchMock, 'POST /api/v1/settings/discord/test')[0]?.body).toEqual({
      discord_user_id: USER_ID,
    });
    act(() => vi.advanceTimersByTime(4_000));
    expect(within(card).queryByRole('status')).toBeNull();

    answer = () =>
      fail(
        400,
        SETTINGS_MESSAGES.discordTestFailed,
        'DISCORD_TEST_FAILED',
        'Cannot send messages to this user (50007)',
      );
    await user.click(within(card).getByRole('button', { name: 'Test' }));
    const alert = await within(card).findByRole('alert');
    expect(alert).toHaveTextContent(SETTINGS_MESSAGES.discordTestFailed);
    expect(alert).toHaveTextContent('Cannot send messages to this user (50007)');
    act(() => vi.advanceTimersByTime(4_000));
    expect(within(card).queryByRole('alert')).toBeNull();
  });

  it("says 'Failed to test Discord connection.' when nothing comes back", async () => {
    const server = settingsServer(makeSettings({ discord_user_id: USER_ID }));
    stubFetch({
      ...server.handlers,
      'POST /api/v1/settings/discord/test': () => Promise.reject(new TypeError('offline')),
    });
    renderSettings();
    const card = await findCard('discord-card');
    await person().click(within(card).getByRole('button', { name: 'Test' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent(
      SETTINGS_MESSAGES.discordTestFailed,
    );
  });

  it('ignores a second test while the first is in flight', async () => {
    const server = settingsServer(makeSettings({ discord_user_id: USER_ID }));
    const answer = deferred<Response>();
    const fetchMock = stubFetch({
      ...server.handlers,
      'POST /api/v1/settings/discord/test': () => answer.promise,
    });
    renderSettings();
    const card = await findCard('discord-card');
    const user = person();
    await user.dblClick(within(card).getByRole('button', { name: 'Test' }));
    await user.click(within(card).getByRole('button', { name: 'Test' }));
    answer.resolve(ok({ status: 'ok', channel: 'discord' }));
    expect(await within(card).findByRole('status')).toHaveTextContent(
      SETTINGS_MESSAGES.discordTestSuccess,
    );
    expect(requestsTo(fetchMock, 'POST /api/v1/settings/discord/test')).toHaveLength(1);
  });

  it('disconnects with an empty id; a failure says so', async () => {
    const server = settingsServer(makeSettings({ discord_user_id: USER_ID }));
    let failNext = true;
    const fetchMock = stubFetch({
      ...server.handlers,
      'POST /api/v1/settings': (request) => {
        if (failNext) {
          failNext = false;
          return fail(500, 'Internal error', 'INTERNAL');
        }
        return server.handlers['POST /api/v1/settings']!(request);
      },
    });
    renderSettings();
    const card = await findCard('discord-card');
    const user = person();
    await user.click(within(card).getByRole('button', { name: 'Disconnect' }));
    expect(await within(card).findByRole('alert')).toHaveTextContent(
      SETTINGS_MESSAGES.discordDisconnectFailed,
    );
    await user.click(within(card).getByRole('button', { name: 'Disconnect' }));
    await waitFor(() =>
      expect(within(card).getByRole('status')).toHaveTextContent(
        SETTINGS_MESSAGES.discordDisconnected,
      ),
    );
    expect(requestsTo(fetchMock, 'POST /api/v1/settings').at(-1)?.body).toEqual({
      discord_user_id: '',
    });
    expect(within(card).getByLabelText('Discord User ID')).toBeVisible();
    expect(within(card).queryByRole('button', { name: 'Cancel' })).toBeNull();
  });

  it('shows the operator hint when the server has no Discord bot token', async () => {
    const server = settingsServer(
      makeSettings({
        discord: { available: false, hint: SETTINGS_MESSAGES.discordUnavailable },
      }),
    );
    const { card } = await openCard('discord-card', server);
    expect(within(card).getByText(SETTINGS_MESSAGES.discordUnavailable)).toBeVisible();
    expect(within(card).queryByLabelText('Discord User ID')).toBeNull();
  });
});

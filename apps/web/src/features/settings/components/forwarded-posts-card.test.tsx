import { DEFAULT_NOTIFICATION_PREFERENCES, SETTINGS_MESSAGES } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { fail, ok, requestsTo, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { deferred } from '../test/deferred';
import { findCard, renderSettings } from '../test/render-settings';
import { settingsServer } from '../test/settings-fixtures';
import { webhooksServer, type WebhooksServerOptions } from '../test/webhook-fixtures';

async function openForwarded(
  options: WebhooksServerOptions = {},
  overrides: Record<string, StubHandler> = {},
) {
  const server = webhooksServer(options);
  const fetchMock = stubFetch({ ...settingsServer().handlers, ...server.handlers, ...overrides });
  renderSettings();
  const card = await findCard('forwarded-posts-card');
  // A switch's accessible name is its label followed by its description.
  const control = (label: string) =>
    within(card).findByRole('switch', { name: (name) => name.startsWith(label) });
  return { fetchMock, server, card, control, user: userEvent.setup({ delay: null }) };
}

describe('What is forwarded', () => {
  apiTestHooks();

  it('shows the saved choices, each with what it means', async () => {
    const { card, control } = await openForwarded({
      preferences: { include_replies: false, include_retweets: true, include_quotes: true },
    });
    expect(await control('Replies')).not.toBeChecked();
    expect(await control('Reposts')).toBeChecked();
    expect(await control('Quotes')).toBeChecked();
    expect(within(card).getByText(/replies in its own threads always come through/)).toBeVisible();
  });

  it('saves a switch at once with PUT, and says so', async () => {
    const answer = deferred<Response>();
    const { card, control, user, fetchMock } = await openForwarded(
      {},
      { 'PUT /api/v1/settings/notifications': () => answer.promise },
    );
    const reposts = await control('Reposts');
    await user.click(reposts);
    // Shown at once, before the server answers.
    expect(reposts).not.toBeChecked();
    expect(requestsTo(fetchMock, 'PUT /api/v1/settings/notifications').map((r) => r.body)).toEqual([
      { include_retweets: false },
    ]);
    answer.resolve(
      ok({ preferences: { ...DEFAULT_NOTIFICATION_PREFERENCES, include_retweets: false } }),
    );
    expect(await within(card).findByTestId('forwarded-posts-message')).toHaveTextContent(
      SETTINGS_MESSAGES.preferencesSaved,
    );
    expect(reposts).not.toBeChecked();
  });

  it('puts only the failed switch back, and says why', async () => {
    const { card, control, user, server } = await openForwarded(
      {},
      {
        'PUT /api/v1/settings/notifications': (request) => {
          const body = request.body as Record<string, boolean>;
          if ('include_quotes' in body) return fail(500, 'Internal error', 'INTERNAL');
          return ok({ preferences: { ...server.state.preferences, ...body } });
        },
      },
    );
    const replies = await control('Replies');
    const quotes = await control('Quotes');
    await user.click(replies);
    await user.click(quotes);
    const message = await within(card).findByTestId('forwarded-posts-message');
    await waitFor(() => expect(message).toHaveTextContent('Failed to save notification settings.'));
    expect(message).toHaveAttribute('role', 'alert');
    expect(quotes).toBeChecked();
    expect(replies).not.toBeChecked();
  });

  it('offers Retry when the choices cannot be loaded', async () => {
    let broken = true;
    const { card, control, user, server } = await openForwarded(
      {},
      {
        'GET /api/v1/settings/notifications': () =>
          broken
            ? fail(500, 'Database unavailable', 'INTERNAL')
            : ok({ preferences: server.state.preferences }),
      },
    );
    const error = await within(card).findByTestId('forwarded-posts-error');
    expect(error).toHaveTextContent('Database unavailable');
    expect(within(card).queryByRole('switch')).toBeNull();
    broken = false;
    await user.click(within(error).getByRole('button', { name: 'Retry' }));
    expect(await control('Replies')).toBeChecked();
    expect(screen.queryByTestId('forwarded-posts-error')).toBeNull();
  });
});

import { WEBHOOK_API_MESSAGES, WEBHOOK_MESSAGES, type WebhookEndpoint } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiTestHooks } from '@/test/api-test-hooks';
import { makeHandle } from '@/test/api-records';
import { fail, ok, requestsTo, stubFetch, type StubHandler } from '@/test/fetch-stub';
import { deferred } from '../test/deferred';
import { findCard, renderSettings } from '../test/render-settings';
import { settingsServer } from '../test/settings-fixtures';
import {
  makeEndpoint,
  testResult,
  webhooksServer,
  type WebhooksServerOptions,
} from '../test/webhook-fixtures';

const person = () => userEvent.setup({ delay: null });

/** The page over a settings server and a webhooks server; `overrides` replace single routes. */
async function openWebhooks(
  options: WebhooksServerOptions = {},
  overrides: Record<string, StubHandler> = {},
) {
  const server = webhooksServer(options);
  const fetchMock = stubFetch({ ...settingsServer().handlers, ...server.handlers, ...overrides });
  renderSettings();
  const card = await findCard('webhooks-card');
  return { fetchMock, server, card, user: person() };
}

const rowOf = (card: HTMLElement, name: string) => within(card).findByRole('listitem', { name });

/** Fills the Add dialog; the format stays Generic JSON unless given. */
async function fillForm(
  user: ReturnType<typeof person>,
  values: { name?: string; url?: string; format?: string },
) {
  const dialog = await screen.findByRole('dialog', { name: 'Add webhook' });
  if (values.name) await user.type(within(dialog).getByLabelText(/^Name/), values.name);
  if (values.url) await user.type(within(dialog).getByLabelText(/^Address \(URL\)/), values.url);
  if (values.format) {
    await user.click(within(dialog).getByRole('combobox', { name: /^Format/ }));
    await user.click(await screen.findByRole('option', { name: new RegExp(values.format) }));
  }
  return dialog;
}

describe('Webhooks card', () => {
  apiTestHooks();

  it('lists each endpoint with its format, address, date and why a stopped one stopped', async () => {
    const { card } = await openWebhooks({
      endpoints: [
        makeEndpoint({ id: 1, name: 'Team alerts', preset: 'slack' }),
        makeEndpoint({
          id: 2,
          name: 'Archive',
          url: 'https://archive.example.org/a/very/long/path/that/goes/on/and/on',
          stopped_reason: 'The endpoint answered 410 Gone.',
        }),
      ],
    });
    const team = await rowOf(card, 'Team alerts');
    expect(within(team).getByText('Slack')).toBeVisible();
    expect(within(team).getByTestId('webhook-url')).toHaveTextContent(
      'https://hooks.example.com/perch/1',
    );
    expect(within(team).getByText(/^Added /)).toHaveTextContent(/2025/);
    expect(within(team).queryByTestId('stopped-reason')).toBeNull();

    const archive = await rowOf(card, 'Archive');
    expect(within(archive).getByText('Generic JSON')).toBeVisible();
    // Cut short on screen, whole on hover.
    expect(within(archive).getByTestId('webhook-url')).toHaveAttribute(
      'title',
      'https://archive.example.org/a/very/long/path/that/goes/on/and/on',
    );
    expect(within(archive).getByTestId('stopped-reason')).toHaveTextContent(
      'The endpoint answered 410 Gone.',
    );
    expect(within(card).getByTestId('webhook-count')).toHaveTextContent('2 of 10');
    expect(within(card).getByTestId('webhook-count')).toHaveAccessibleName('2 of 10 webhooks used');
  });

  it('says what webhooks are for while there are none, and offers Retry when the list fails', async () => {
    let answer: StubHandler = () => fail(500, 'Database unavailable', 'INTERNAL');
    const { card, user } = await openWebhooks({}, { 'GET /api/v1/webhooks': (r) => answer(r) });
    const error = await within(card).findByTestId('webhooks-error');
    expect(error).toHaveTextContent('Failed to load webhooks');
    expect(error).toHaveTextContent('Database unavailable');
    answer = () => ok({ endpoints: [], limit: 10 });
    await user.click(within(error).getByRole('button', { name: 'Retry' }));
    const empty = await within(card).findByTestId('webhooks-empty');
    expect(empty).toHaveTextContent('No webhooks yet.');
    expect(empty).toHaveTextContent(/Slack channel or a Discord channel/);
    expect(within(empty).getByRole('button', { name: 'Add webhook' })).toBeEnabled();
  });

  it('adds a webhook with the typed values and shows its secret once, with how to verify it', async () => {
    const { card, user, fetchMock } = await openWebhooks();
    await user.click(await within(card).findByRole('button', { name: 'Add webhook' }));
    const dialog = await fillForm(user, {
      name: 'Team alerts',
      url: 'https://hooks.slack.com/services/T000/B000/XXXX',
      format: 'Slack',
    });
    // The chosen format explains itself under the field.
    expect(within(dialog).getByRole('combobox', { name: /^Format/ })).toHaveAccessibleDescription(
      /Slack incoming webhook/,
    );
    await user.click(within(dialog).getByRole('button', { name: 'Add webhook' }));

    const secretDialog = await screen.findByRole('dialog', { name: 'Copy the signing secret' });
    expect(requestsTo(fetchMock, 'POST /api/v1/webhooks').map((r) => r.body)).toEqual([
      {
        name: 'Team alerts',
        url: 'https://hooks.slack.com/services/T000/B000/XXXX',
        preset: 'slack',
      },
    ]);
    expect(within(secretDialog).getByText(WEBHOOK_API_MESSAGES.created)).toBeVisible();
    expect(within(secretDialog).getByTestId('webhook-secret')).toHaveTextContent(
      'whsec_test_secret_1',
    );
    const hint = within(secretDialog).getByTestId('webhook-verify-hint');
    expect(hint).toHaveTextContent('X-Perch-Signature: v1=<hex>');
    expect(hint).toHaveTextContent('${X-Perch-Timestamp}.${raw body}');
    expect(hint).toHaveTextContent('HMAC-SHA256');

    // user-event stands in for the clipboard.
    await user.click(within(secretDialog).getByRole('button', { name: 'Copy the signing secret' }));
    expect(await navigator.clipboard.readText()).toBe('whsec_test_secret_1');

    await user.click(within(secretDialog).getByRole('button', { name: 'I have copied it' }));
    await waitFor(() => expect(screen.queryByText('whsec_test_secret_1')).toBeNull());
    const row = await rowOf(card, 'Team alerts');
    expect(within(row).getByText('Slack')).toBeVisible();
    expect(within(card).getByTestId('webhook-count')).toHaveTextContent('1 of 10');
    // Nothing on the page can show the secret again.
    expect(screen.queryByText(/whsec_/)).toBeNull();
  });

  it('checks the fields first, then shows the server’s refusal of the address at the URL field', async () => {
    const { card, user, fetchMock } = await openWebhooks(
      {},
      {
        'POST /api/v1/webhooks': () =>
          fail(400, WEBHOOK_MESSAGES.addressNotAllowed, 'VALIDATION_ERROR'),
      },
    );
    await user.click(await within(card).findByRole('button', { name: 'Add webhook' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add webhook' });
    await user.click(within(dialog).getByRole('button', { name: 'Add webhook' }));
    expect(within(dialog).getByLabelText(/^Name/)).toHaveAccessibleDescription(
      expect.stringContaining(WEBHOOK_MESSAGES.nameRequired),
    );
    expect(within(dialog).getByLabelText(/^Address/)).toHaveAccessibleDescription(
      expect.stringContaining(WEBHOOK_MESSAGES.urlRequired),
    );
    expect(requestsTo(fetchMock, 'POST /api/v1/webhooks')).toHaveLength(0);

    await fillForm(user, { name: 'Home', url: 'https://192.168.1.20/hook' });
    await user.click(within(dialog).getByRole('button', { name: 'Add webhook' }));
    const url = within(dialog).getByLabelText(/^Address/);
    await waitFor(() =>
      expect(url).toHaveAccessibleDescription(
        expect.stringContaining(WEBHOOK_MESSAGES.addressNotAllowed),
      ),
    );
    expect(url).toHaveAttribute('aria-invalid', 'true');
    expect(within(dialog).getByLabelText(/^Name/)).not.toHaveAttribute('aria-invalid', 'true');
    // Still open, with what was typed, and no secret shown.
    expect(url).toHaveValue('https://192.168.1.20/hook');
    expect(screen.queryByRole('dialog', { name: 'Copy the signing secret' })).toBeNull();
    // Typing again clears the message.
    await user.type(url, 'x');
    expect(url).not.toHaveAttribute('aria-invalid', 'true');
  });

  it('says a refusal at the limit above the form', async () => {
    const { card, user } = await openWebhooks(
      { endpoints: [makeEndpoint({ id: 1, name: 'One' })], limit: 2 },
      {
        'POST /api/v1/webhooks': () =>
          fail(409, WEBHOOK_API_MESSAGES.limitReached, 'WEBHOOK_LIMIT'),
      },
    );
    await user.click(await within(card).findByRole('button', { name: 'Add webhook' }));
    const dialog = await fillForm(user, { name: 'Two', url: 'https://example.com/two' });
    await user.click(within(dialog).getByRole('button', { name: 'Add webhook' }));
    expect(await within(dialog).findByTestId('webhook-form-error')).toHaveTextContent(
      WEBHOOK_API_MESSAGES.limitReached,
    );
  });

  it('turns Add off at the limit', async () => {
    const { card } = await openWebhooks({
      endpoints: [makeEndpoint({ id: 1, name: 'One' }), makeEndpoint({ id: 2, name: 'Two' })],
      limit: 2,
    });
    await rowOf(card, 'Two');
    expect(within(card).getByRole('button', { name: 'Add webhook' })).toBeDisabled();
    expect(
      within(card).getByText('You have all 2 webhooks: delete one to add another.'),
    ).toBeVisible();
    expect(within(card).getByTestId('webhook-count')).toHaveTextContent('2 of 2');
  });

  it('edits a webhook, sending only what changed', async () => {
    const { card, user, fetchMock } = await openWebhooks({
      endpoints: [makeEndpoint({ id: 3, name: 'Team alerts', stopped_reason: 'Answered 404.' })],
    });
    const row = await rowOf(card, 'Team alerts');
    await user.click(within(row).getByRole('button', { name: 'Edit Team alerts' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit webhook' });
    const url = within(dialog).getByLabelText(/^Address/);
    expect(url).toHaveValue('https://hooks.example.com/perch/3');
    await user.clear(url);
    await user.type(url, 'https://hooks.example.com/perch/new');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(card).findByTestId('webhooks-message')).toHaveTextContent(
      'Webhook "Team alerts" saved.',
    );
    expect(requestsTo(fetchMock, 'PATCH /api/v1/webhooks/3').map((r) => r.body)).toEqual([
      { url: 'https://hooks.example.com/perch/new' },
    ]);
    // The new address restarted it.
    expect(within(row).getByTestId('webhook-url')).toHaveTextContent(
      'https://hooks.example.com/perch/new',
    );
    expect(within(row).queryByTestId('stopped-reason')).toBeNull();
  });

  it('tests an endpoint and shows how it answered, accepted or not', async () => {
    let answer = testResult();
    const { card, user, fetchMock } = await openWebhooks(
      { endpoints: [makeEndpoint({ id: 4, name: 'Team alerts' })] },
      { 'POST /api/v1/webhooks/4/test': () => ok(answer) },
    );
    const row = await rowOf(card, 'Team alerts');
    await user.click(within(row).getByRole('button', { name: 'Test Team alerts' }));
    const passed = await within(row).findByTestId('webhook-test-result');
    expect(passed).toHaveTextContent('Test passed: Answered 204 in 85 ms.');
    expect(passed).toHaveAttribute('role', 'status');

    answer = testResult({
      ok: false,
      status: 500,
      duration_ms: 1200,
      message: 'Answered 500 in 1200 ms.',
    });
    await user.click(within(row).getByRole('button', { name: 'Test Team alerts' }));
    await waitFor(() =>
      expect(within(row).getByTestId('webhook-test-result')).toHaveTextContent(
        'Test failed: Answered 500 in 1200 ms.',
      ),
    );
    expect(within(row).getByTestId('webhook-test-result')).toHaveAttribute('role', 'alert');
    expect(requestsTo(fetchMock, 'POST /api/v1/webhooks/4/test')).toHaveLength(2);
  });

  it('says why no test request could be sent', async () => {
    const { card, user } = await openWebhooks(
      { endpoints: [makeEndpoint({ id: 5, name: 'Gone' })] },
      {
        'POST /api/v1/webhooks/5/test': () => fail(404, WEBHOOK_API_MESSAGES.notFound, 'NOT_FOUND'),
      },
    );
    const row = await rowOf(card, 'Gone');
    await user.click(within(row).getByRole('button', { name: 'Test Gone' }));
    expect(await within(row).findByTestId('webhook-test-result')).toHaveTextContent(
      `Test failed: ${WEBHOOK_API_MESSAGES.notFound}`,
    );
  });

  it('rotates the secret only after confirming, then shows the new one once', async () => {
    const { card, user, fetchMock } = await openWebhooks({
      endpoints: [makeEndpoint({ id: 6, name: 'Team alerts' })],
    });
    const row = await rowOf(card, 'Team alerts');
    const rotate = within(row).getByRole('button', { name: 'Rotate secret of Team alerts' });
    await user.click(rotate);
    const question = await screen.findByRole('dialog', { name: 'Make a new secret?' });
    await user.click(within(question).getByRole('button', { name: 'Cancel' }));
    expect(requestsTo(fetchMock, 'POST /api/v1/webhooks/6/rotate-secret')).toHaveLength(0);

    await user.click(rotate);
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Make a new secret?' })).getByRole(
        'button',
        { name: 'Make new secret' },
      ),
    );
    const secretDialog = await screen.findByRole('dialog', { name: 'Copy the signing secret' });
    expect(within(secretDialog).getByText(WEBHOOK_API_MESSAGES.rotated)).toBeVisible();
    expect(within(secretDialog).getByTestId('webhook-secret')).toHaveTextContent(
      'whsec_test_secret_1',
    );
    expect(requestsTo(fetchMock, 'POST /api/v1/webhooks/6/rotate-secret')).toHaveLength(1);
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByText('whsec_test_secret_1')).toBeNull());
  });

  it('deletes only after confirming', async () => {
    const { card, user, fetchMock } = await openWebhooks({
      endpoints: [makeEndpoint({ id: 7, name: 'Team alerts' })],
    });
    const row = await rowOf(card, 'Team alerts');
    await user.click(within(row).getByRole('button', { name: 'Delete Team alerts' }));
    const question = await screen.findByRole('dialog', { name: 'Delete webhook?' });
    expect(within(question).getByTestId('confirm-message')).toHaveTextContent(
      '"Team alerts" stops receiving posts and alerts at once',
    );
    await user.click(within(question).getByRole('button', { name: 'Cancel' }));
    expect(requestsTo(fetchMock, 'DELETE /api/v1/webhooks/7')).toHaveLength(0);
    expect(row).toBeVisible();

    await user.click(within(row).getByRole('button', { name: 'Delete Team alerts' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Delete webhook?' })).getByRole('button', {
        name: 'Delete webhook',
      }),
    );
    expect(await within(card).findByTestId('webhooks-message')).toHaveTextContent(
      WEBHOOK_API_MESSAGES.deleted,
    );
    expect(requestsTo(fetchMock, 'DELETE /api/v1/webhooks/7')).toHaveLength(1);
    expect(within(card).queryByRole('listitem', { name: 'Team alerts' })).toBeNull();
    expect(within(card).getByTestId('webhooks-empty')).toBeVisible();
  });
});

describe('Webhooks per handle', () => {
  apiTestHooks();

  const endpoint: WebhookEndpoint = makeEndpoint({ id: 1, name: 'Team alerts' });

  it('switches a handle’s webhooks with PUT webhookEnabled, at once', async () => {
    const nasa = makeHandle({ id: 11, handle: 'nasa' });
    const esa = makeHandle({ id: 12, handle: 'esa', webhook_enabled: true });
    const answer = deferred<Response>();
    const { card, user, fetchMock } = await openWebhooks(
      { endpoints: [endpoint], handles: [nasa, esa] },
      { 'PUT /api/v1/handles/11/notifications': () => answer.promise },
    );
    const nasaSwitch = await within(card).findByRole('switch', { name: 'Webhooks for @nasa' });
    expect(nasaSwitch).not.toBeChecked();
    expect(within(card).getByRole('switch', { name: 'Webhooks for @esa' })).toBeChecked();
    expect(nasaSwitch).toHaveAccessibleDescription(/go to every webhook above/);

    await user.click(nasaSwitch);
    // Shown at once, before the server answers.
    expect(nasaSwitch).toBeChecked();
    expect(
      requestsTo(fetchMock, 'PUT /api/v1/handles/11/notifications').map((r) => r.body),
    ).toEqual([{ webhookEnabled: true }]);
    answer.resolve(ok({ handle: { ...nasa, webhook_enabled: true } }));
    expect(await within(card).findByTestId('webhooks-message')).toHaveTextContent(
      'Webhooks enabled for @nasa',
    );
    expect(nasaSwitch).toBeChecked();
  });

  it('puts the switch back with the server’s reason when it refuses', async () => {
    const nasa = makeHandle({ id: 13, handle: 'nasa' });
    const { card, user } = await openWebhooks(
      { endpoints: [endpoint], handles: [nasa] },
      {
        'PUT /api/v1/handles/13/notifications': () =>
          fail(400, WEBHOOK_API_MESSAGES.addWebhookFirst, 'VALIDATION_ERROR'),
      },
    );
    const nasaSwitch = await within(card).findByRole('switch', { name: 'Webhooks for @nasa' });
    await user.click(nasaSwitch);
    expect(await within(card).findByTestId('webhooks-message')).toHaveTextContent(
      WEBHOOK_API_MESSAGES.addWebhookFirst,
    );
    expect(nasaSwitch).not.toBeChecked();
  });

  it('waits for a first webhook, with a hint, and says where to add handles', async () => {
    const { card } = await openWebhooks({ handles: [makeHandle({ id: 14, handle: 'nasa' })] });
    const nasaSwitch = await within(card).findByRole('switch', { name: 'Webhooks for @nasa' });
    expect(nasaSwitch).toBeDisabled();
    expect(nasaSwitch).toHaveAccessibleDescription(
      'Add a webhook first: then choose which handles it receives.',
    );
  });

  it('points to the dashboard without handles', async () => {
    const { card } = await openWebhooks({ endpoints: [endpoint] });
    const empty = await within(card).findByTestId('webhook-handles-empty');
    expect(within(empty).getByRole('link', { name: 'Dashboard' })).toHaveAttribute('href', '/');
  });
});

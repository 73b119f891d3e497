import { ALERT_MESSAGES } from '@perch/shared';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import {
  alertServer,
  makeFiring,
  makeRule,
  type AlertServerOptions,
} from '@/features/alerts/test/alert-fixtures';
import { ALERTS_POLL_MS } from '@/lib/polling/intervals';
import { apiTestHooks } from '@/test/api-test-hooks';
import { makeHandle } from '@/test/api-records';
import {
  fail,
  heartbeatHandler,
  ok,
  requestsTo,
  signedInCheckHandler,
  stubFetch,
} from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { renderApp } from '@/test/render-app';
import { AlertsRoute } from './alerts';

const person = () => userEvent.setup({ delay: null });

const HANDLES = [makeHandle({ id: 1, handle: 'nasa' }), makeHandle({ id: 2, handle: 'esa' })];
const RULES = [
  makeRule({ id: 1, name: 'Big post', handle: 'nasa' }),
  makeRule({
    id: 2,
    name: 'Launch words',
    handle: 'nasa',
    kind: { type: 'words', include: ['launch', 'liftoff'], exclude: ['giveaway'] },
  }),
  makeRule({
    id: 3,
    name: 'Quiet spell',
    handle: 'esa',
    enabled: false,
    kind: { type: 'silence', days: 3 },
  }),
];

function renderAlerts(options: AlertServerOptions = {}) {
  const server = alertServer({ handles: HANDLES, rules: RULES, ...options });
  const fetchMock = stubFetch(server.handlers);
  renderRoute('/alerts', <AlertsRoute />);
  return { fetchMock, server };
}

const rulesSection = () => screen.getByRole('region', { name: 'Alert rules' });
const historySection = () => screen.getByRole('region', { name: 'History' });

async function openNewAlert() {
  await screen.findAllByTestId('alert-rule');
  await person().click(within(rulesSection()).getAllByRole('button', { name: 'New alert' })[0]!);
  return screen.findByRole('dialog', { name: 'New alert' });
}

describe('Alerts route', () => {
  apiTestHooks();

  it('lists the rules per handle with what each watches, its switch and the count used', async () => {
    renderAlerts();
    expect(screen.getByRole('heading', { level: 2, name: 'Alerts' })).toBeVisible();
    const rules = await screen.findAllByTestId('alert-rule');
    expect(rules).toHaveLength(3);

    const nasa = screen.getByRole('list', { name: 'Alerts for @nasa' });
    const bigPost = within(nasa).getByRole('listitem', { name: 'Big post' });
    expect(bigPost).toHaveTextContent('Post passes a number');
    expect(bigPost).toHaveTextContent('A post reaches 1,000 likes within 24 hours of posting.');
    expect(within(bigPost).getByRole('switch', { name: 'Big post is on' })).toBeChecked();
    expect(within(nasa).getByRole('listitem', { name: 'Launch words' })).toHaveTextContent(
      'A post mentions “launch” or “liftoff”, but not “giveaway”.',
    );

    const esa = screen.getByRole('list', { name: 'Alerts for @esa' });
    const quiet = within(esa).getByRole('listitem', { name: 'Quiet spell' });
    expect(quiet).toHaveTextContent('The handle has not posted for 3 days.');
    expect(within(quiet).getByRole('switch', { name: 'Quiet spell is on' })).not.toBeChecked();

    expect(screen.getByTestId('alerts-used')).toHaveTextContent('3 of 50 alerts used');
  });

  it('creates a rule with the body of the request and shows it in the list', async () => {
    const { fetchMock } = renderAlerts();
    const dialog = await openNewAlert();
    const user = person();
    await user.selectOptions(within(dialog).getByRole('combobox', { name: /Handle/ }), 'esa');
    await user.type(within(dialog).getByRole('textbox', { name: /Name/ }), '  Viral  ');
    await user.selectOptions(
      within(dialog).getByRole('combobox', { name: 'Alert when' }),
      "Post beats the handle's median",
    );
    const multiple = within(dialog).getByRole('textbox', { name: 'Times the median' });
    await user.clear(multiple);
    await user.type(multiple, '2.5');
    await user.selectOptions(
      within(dialog).getByRole('combobox', { name: 'Median of' }),
      'The last 30 days',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Create alert' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(requestsTo(fetchMock, 'POST /api/v1/alerts')[0]?.body).toEqual({
      handle: 'esa',
      name: 'Viral',
      enabled: true,
      kind: { type: 'engagement_multiple', multiple: 2.5, period: 'month' },
    });
    expect(await screen.findByTestId('alert-rules-success')).toHaveTextContent(
      'Alert “Viral” created.',
    );
    const esa = screen.getByRole('list', { name: 'Alerts for @esa' });
    expect(within(esa).getByRole('listitem', { name: 'Viral' })).toHaveTextContent(
      "A post's engagement reaches 2.5× the handle's median of the last 30 days.",
    );
    expect(screen.getByTestId('alerts-used')).toHaveTextContent('4 of 50 alerts used');
  });

  it('checks the form with the request’s own messages before sending anything', async () => {
    const { fetchMock } = renderAlerts();
    const dialog = await openNewAlert();
    const user = person();
    await user.selectOptions(
      within(dialog).getByRole('combobox', { name: 'Alert when' }),
      'Post mentions words',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Create alert' }));

    expect(within(dialog).getByText(ALERT_MESSAGES.nameEmpty)).toBeVisible();
    expect(within(dialog).getByText(ALERT_MESSAGES.wordsIncludeEmpty)).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/alerts')).toHaveLength(0);

    await user.selectOptions(
      within(dialog).getByRole('combobox', { name: 'Alert when' }),
      'Followers change',
    );
    await user.clear(within(dialog).getByRole('textbox', { name: 'By at least (%)' }));
    await user.click(within(dialog).getByRole('button', { name: 'Create alert' }));
    expect(within(dialog).getByText(ALERT_MESSAGES.followerChangeEmpty)).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/alerts')).toHaveLength(0);
  });

  it('shows the server’s 400 message in the form and keeps what was typed', async () => {
    const { fetchMock } = renderAlerts({
      refuseCreate: () => fail(400, ALERT_MESSAGES.thresholdInvalid, 'VALIDATION_ERROR'),
    });
    const dialog = await openNewAlert();
    const user = person();
    await user.type(within(dialog).getByRole('textbox', { name: /Name/ }), 'Big replies');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Metric' }), 'Replies');
    const hours = within(dialog).getByRole('textbox', { name: /Within hours of posting/ });
    await user.clear(hours);
    await user.type(hours, '12');
    await user.click(within(dialog).getByRole('button', { name: 'Create alert' }));

    expect(await within(dialog).findByTestId('alert-form-error')).toHaveTextContent(
      ALERT_MESSAGES.thresholdInvalid,
    );
    expect(requestsTo(fetchMock, 'POST /api/v1/alerts')[0]?.body).toEqual({
      handle: 'nasa',
      name: 'Big replies',
      enabled: true,
      kind: { type: 'metric_threshold', metric: 'replies', threshold: 1000, within_hours: 12 },
    });
    expect(screen.getByRole('dialog', { name: 'New alert' })).toBeVisible();
    expect(within(dialog).getByRole('textbox', { name: /Name/ })).toHaveValue('Big replies');
  });

  it('edits a rule with its stored values and sends its name and kind', async () => {
    const { fetchMock } = renderAlerts();
    await person().click(await screen.findByRole('button', { name: 'Edit Launch words' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit alert for @nasa' });
    expect(within(dialog).queryByRole('combobox', { name: /Handle/ })).toBeNull();
    expect(within(dialog).getByRole('textbox', { name: /Name/ })).toHaveValue('Launch words');
    const user = person();
    await user.type(
      within(dialog).getByRole('combobox', { name: /Posts with any of/ }),
      'landing{Enter}',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Save alert' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(requestsTo(fetchMock, 'PATCH /api/v1/alerts/2')[0]?.body).toEqual({
      name: 'Launch words',
      kind: { type: 'words', include: ['launch', 'liftoff', 'landing'], exclude: ['giveaway'] },
    });
    expect(
      within(rulesSection()).getByRole('listitem', { name: 'Launch words' }),
    ).toHaveTextContent('A post mentions “launch”, “liftoff” or “landing”, but not “giveaway”.');
  });

  it('switches a rule off with PATCH enabled', async () => {
    const { fetchMock } = renderAlerts();
    const toggle = await screen.findByRole('switch', { name: 'Big post is on' });
    await person().click(toggle);

    await waitFor(() =>
      expect(requestsTo(fetchMock, 'PATCH /api/v1/alerts/1')[0]?.body).toEqual({ enabled: false }),
    );
    await waitFor(() => expect(toggle).not.toBeChecked());
    expect(await screen.findByTestId('alert-rules-success')).toHaveTextContent(
      'Alert “Big post” switched off.',
    );
  });

  it('puts the switch back and says why when the change is refused', async () => {
    const server = alertServer({ handles: HANDLES, rules: RULES });
    stubFetch({
      ...server.handlers,
      'PATCH /api/v1/alerts/1': () => fail(404, ALERT_MESSAGES.notFound, 'NOT_FOUND'),
    });
    renderRoute('/alerts', <AlertsRoute />);
    const toggle = await screen.findByRole('switch', { name: 'Big post is on' });
    await person().click(toggle);

    const error = await screen.findByTestId('alert-rules-error');
    expect(error).toHaveTextContent('Failed to switch the alert');
    expect(error).toHaveTextContent(ALERT_MESSAGES.notFound);
    expect(toggle).toBeChecked();
  });

  it('asks before deleting, and sends DELETE only when confirmed', async () => {
    const { fetchMock } = renderAlerts();
    const user = person();
    await user.click(await screen.findByRole('button', { name: 'Delete Quiet spell' }));
    let dialog = await screen.findByRole('dialog', { name: 'Delete alert' });
    expect(within(dialog).getByTestId('confirm-message')).toHaveTextContent(
      'Delete the alert “Quiet spell” for @esa?',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(requestsTo(fetchMock, 'DELETE /api/v1/alerts/3')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Delete Quiet spell' }));
    dialog = await screen.findByRole('dialog', { name: 'Delete alert' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));

    expect(await screen.findByTestId('alert-rules-success')).toHaveTextContent(
      'Alert “Quiet spell” deleted.',
    );
    expect(requestsTo(fetchMock, 'DELETE /api/v1/alerts/3')).toHaveLength(1);
    expect(screen.queryByRole('list', { name: 'Alerts for @esa' })).toBeNull();
    expect(screen.getByTestId('alerts-used')).toHaveTextContent('2 of 50 alerts used');
  });

  it('shows the history newest first with its numbers and post, and loads more', async () => {
    const firings = Array.from({ length: 25 }, (_, index) =>
      makeFiring({
        id: 100 - index,
        handle: index % 2 === 0 ? 'nasa' : 'esa',
        fired_at: new Date(Date.now() - (index + 1) * 60_000).toISOString(),
      }),
    );
    firings[1] = makeFiring({
      id: 99,
      rule_name: 'Quiet spell',
      handle: 'esa',
      kind: { type: 'silence', days: 3 },
      tweet_id: null,
      tweet_url: null,
      fired_at: '2025-03-10T11:00:00.000Z',
      numbers: { days: 3, days_silent: 3.25 },
      summary: '@esa has not posted for 3 days.',
    });
    const { fetchMock } = renderAlerts({ firings });
    const history = within(historySection());
    const items = await history.findAllByTestId('alert-firing');
    expect(items).toHaveLength(20);

    const first = items[0]!;
    expect(first).toHaveTextContent('Big post');
    expect(first).toHaveTextContent('@nasa');
    expect(first).toHaveTextContent('1 min ago');
    expect(within(first).getByRole('time')).toHaveAttribute('title');
    expect(first).toHaveTextContent('A post by @nasa reached 1,250 likes');
    expect(within(first).getByTestId('alert-firing-numbers')).toHaveTextContent(
      /Likes\s*1,250\s*Threshold\s*1,000/,
    );
    expect(
      within(first).getByRole('link', { name: 'View the post that fired Big post on X' }),
    ).toHaveAttribute('href', 'https://x.com/nasa/status/9100');

    const quiet = items[1]!;
    expect(quiet).toHaveTextContent('@esa has not posted for 3 days.');
    expect(within(quiet).getByTestId('alert-firing-numbers')).toHaveTextContent(
      /Days without a post\s*3\.3\s*Days needed\s*3/,
    );
    expect(within(quiet).queryByRole('link')).toBeNull();

    await person().click(history.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(history.getAllByTestId('alert-firing')).toHaveLength(25));
    const pages = requestsTo(fetchMock, 'GET /api/v1/alerts/firings');
    expect(pages.at(-1)?.query.get('before')).toBe('81');
    expect(history.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('filters the history by handle and offers the exports', async () => {
    const firings = [
      makeFiring({ id: 3, handle: 'nasa', rule_name: 'Big post' }),
      makeFiring({ id: 2, handle: 'esa', rule_name: 'Quiet spell' }),
    ];
    const { fetchMock } = renderAlerts({ firings });
    const history = within(historySection());
    expect(await history.findAllByTestId('alert-firing')).toHaveLength(2);
    expect(history.getByRole('link', { name: 'Export JSON' })).toHaveAttribute(
      'href',
      '/api/v1/alerts/export?format=json',
    );
    expect(history.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/v1/alerts/export?format=csv',
    );

    await person().selectOptions(history.getByRole('combobox', { name: 'Handle' }), '@esa');
    await waitFor(() => expect(history.getAllByTestId('alert-firing')).toHaveLength(1));
    expect(history.getByTestId('alert-firing')).toHaveTextContent('Quiet spell');
    expect(requestsTo(fetchMock, 'GET /api/v1/alerts/firings').at(-1)?.query.get('handle')).toBe(
      'esa',
    );
  });

  it('reads the rules and the history again every minute while the page is open', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const firings = [makeFiring({ id: 1, rule_name: 'Big post' })];
    const { fetchMock } = renderAlerts({ firings });
    const history = within(historySection());
    expect(await history.findAllByTestId('alert-firing')).toHaveLength(1);
    const asked = () => ({
      rules: requestsTo(fetchMock, 'GET /api/v1/alerts').length,
      firings: requestsTo(fetchMock, 'GET /api/v1/alerts/firings').length,
    });
    expect(asked()).toEqual({ rules: 1, firings: 1 });

    // An alert fires meanwhile: the server says nothing, the next minute's read shows it.
    firings.unshift(makeFiring({ id: 2, rule_name: 'Launch words' }));
    await act(() => vi.advanceTimersByTimeAsync(ALERTS_POLL_MS - 1_000));
    expect(asked()).toEqual({ rules: 1, firings: 1 });
    await act(() => vi.advanceTimersByTimeAsync(2_000));
    expect(asked()).toEqual({ rules: 2, firings: 2 });
    await waitFor(() => expect(history.getAllByTestId('alert-firing')).toHaveLength(2));
    expect(history.getAllByTestId('alert-firing')[0]).toHaveTextContent('Launch words');
    expect(ALERTS_POLL_MS).toBe(60_000);
  });

  it('says when no alert has fired yet', async () => {
    renderAlerts({ firings: [] });
    expect(await screen.findByTestId('alert-history-empty')).toHaveTextContent(
      'No alert has fired yet.',
    );
  });

  it('explains alerts and offers New alert when there are none yet', async () => {
    renderAlerts({ rules: [] });
    const empty = await screen.findByTestId('alerts-no-rules');
    expect(empty).toHaveTextContent('No alerts yet');
    await person().click(within(empty).getByRole('button', { name: 'New alert' }));
    expect(await screen.findByRole('dialog', { name: 'New alert' })).toBeVisible();
    expect(screen.getByTestId('alerts-used')).toHaveTextContent('0 of 50 alerts used');
  });

  it('points to the dashboard when no handle is followed yet', async () => {
    renderAlerts({ handles: [], rules: [] });
    const empty = await screen.findByTestId('alerts-no-handles');
    expect(empty).toHaveTextContent('Follow a handle first');
    expect(within(empty).getByRole('link', { name: 'Go to the dashboard' })).toHaveAttribute(
      'href',
      '/',
    );
    expect(within(rulesSection()).getByRole('button', { name: 'New alert' })).toBeDisabled();
  });

  it('stops offering New alert at the limit', async () => {
    renderAlerts({ limit: 3 });
    await screen.findAllByTestId('alert-rule');
    expect(screen.getByTestId('alerts-used')).toHaveTextContent('3 of 3 alerts used');
    expect(within(rulesSection()).getByRole('button', { name: 'New alert' })).toBeDisabled();
  });

  it('shows a failed load with the server’s reason and loads again on Retry', async () => {
    const server = alertServer({ handles: HANDLES, rules: RULES });
    let rulesFail = true;
    stubFetch({
      ...server.handlers,
      'GET /api/v1/alerts': () =>
        rulesFail
          ? fail(503, 'Database unavailable', 'UNAVAILABLE')
          : ok({ rules: RULES, limit: 50 }),
      'GET /api/v1/alerts/firings': () => fail(500, 'Boom', 'INTERNAL'),
    });
    renderRoute('/alerts', <AlertsRoute />);

    const error = await screen.findByTestId('alert-rules-load-error');
    expect(error).toHaveTextContent('Failed to load alerts');
    expect(error).toHaveTextContent('Database unavailable');
    const historyError = await screen.findByTestId('alert-history-error');
    expect(historyError).toHaveTextContent('Failed to load alert history');

    rulesFail = false;
    await person().click(within(error).getByRole('button', { name: 'Retry' }));
    expect(await screen.findAllByTestId('alert-rule')).toHaveLength(3);
  });

  it('is in the menu and opens at /alerts when signed in', async () => {
    const server = alertServer({ handles: HANDLES, rules: RULES });
    stubFetch({
      ...server.handlers,
      'GET /api/v1/auth/check': signedInCheckHandler(),
      'POST /api/v1/session/heartbeat': heartbeatHandler,
      'GET /api/v1/security/suspicious-activity': () => ok({ hasAlerts: false, alerts: [] }),
    });
    renderApp('/alerts');
    expect(await screen.findByRole('heading', { level: 2, name: 'Alerts' })).toBeVisible();
    const menu = screen.getByRole('navigation', { name: 'Menu' });
    expect(within(menu).getByRole('link', { name: 'Alerts' })).toHaveAttribute('href', '/alerts');
    expect(await screen.findAllByTestId('alert-rule')).toHaveLength(3);
  });
});

import { SECURITY_MESSAGES } from '@perch/shared';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { Mock } from 'vitest';
import { describe, expect, it } from 'vitest';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { endOfDayIso, startOfDayIso } from '../utils/format';
import { manyEvents, sampleSecurityServer, securityServer } from '../test/security-fixtures';
import { card, person, renderSecurity } from '../test/render-security';
import { EVENTS_PAGE_SIZE, EventsSection } from './events-section';

const events = () => card('Security events');
const rows = () => within(events()).queryAllByTestId('event-row');
const range = () => within(events()).getByTestId('events-range');

/** The query of every events request, as plain objects. */
function eventQueries(fetchMock: Mock<typeof fetch>): Record<string, string>[] {
  return requestsTo(fetchMock, 'GET /api/v1/security/events').map((request) =>
    Object.fromEntries(request.query.entries()),
  );
}

describe('Security events', () => {
  it('lists the newest events first with severity badges, 20 a page', async () => {
    const fetchMock = stubFetch(sampleSecurityServer().handlers);
    renderSecurity(<EventsSection />);
    await within(events()).findAllByTestId('event-row');
    expect(rows()).toHaveLength(3);
    expect(rows()[0]).toHaveTextContent('Login failed');
    expect(rows()[0]).toHaveTextContent('Wrong password.');
    expect(rows()[0]).toHaveTextContent('192.0.2.200');
    expect(within(rows()[0]!).getByText('Medium').closest('[data-severity]')).toHaveAttribute(
      'data-severity',
      'medium',
    );
    expect(rows()[1]).toHaveTextContent('by ada');
    expect(within(rows()[1]!).getByText('High')).toBeVisible();
    expect(range()).toHaveTextContent('1–3 of 3');
    expect(eventQueries(fetchMock)).toEqual([{ limit: String(EVENTS_PAGE_SIZE), offset: '0' }]);
  });

  it('sends the type, severity and days chosen, and starts again at the first page', async () => {
    const fetchMock = stubFetch(sampleSecurityServer().handlers);
    renderSecurity(<EventsSection />);
    await within(events()).findAllByTestId('event-row');
    const user = person();
    const filters = within(events());

    await user.selectOptions(filters.getByRole('combobox', { name: 'Type' }), 'role_changed');
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(rows()[0]).toHaveTextContent('Role changed to admin.');
    expect(eventQueries(fetchMock).at(-1)).toEqual({
      eventType: 'role_changed',
      limit: '20',
      offset: '0',
    });

    await user.selectOptions(filters.getByRole('combobox', { name: 'Severity' }), 'medium');
    await waitFor(() => expect(within(events()).getByTestId('events-empty')).toBeVisible());
    expect(within(events()).getByTestId('events-empty')).toHaveTextContent(
      'No security events match these filters.',
    );
    expect(eventQueries(fetchMock).at(-1)).toMatchObject({
      eventType: 'role_changed',
      severity: 'medium',
    });

    await user.selectOptions(filters.getByRole('combobox', { name: 'Type' }), '');
    fireEvent.change(filters.getByLabelText('From'), { target: { value: '2025-03-10' } });
    fireEvent.change(filters.getByLabelText('To'), { target: { value: '2025-03-10' } });
    await waitFor(() =>
      expect(eventQueries(fetchMock).at(-1)).toEqual({
        severity: 'medium',
        startDate: startOfDayIso('2025-03-10'),
        endDate: endOfDayIso('2025-03-10'),
        limit: '20',
        offset: '0',
      }),
    );

    await user.click(filters.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(eventQueries(fetchMock).at(-1)).toEqual({ limit: '20', offset: '0' });
  });

  it('flags an end date before the start date and leaves the days out of the query', async () => {
    const fetchMock = stubFetch(sampleSecurityServer().handlers);
    renderSecurity(<EventsSection />);
    await within(events()).findAllByTestId('event-row');
    fireEvent.change(within(events()).getByLabelText('From'), {
      target: { value: '2025-03-10' },
    });
    fireEvent.change(within(events()).getByLabelText('To'), { target: { value: '2025-03-01' } });
    expect(
      await within(events()).findByText('The end date is before the start date.'),
    ).toBeVisible();
    await waitFor(() =>
      expect(eventQueries(fetchMock).at(-1)).toEqual({ limit: '20', offset: '0' }),
    );
  });

  it('pages by limit and offset with the total, and a new filter starts at the first page', async () => {
    expect(EVENTS_PAGE_SIZE).toBe(20);
    const fetchMock = stubFetch(securityServer({ events: manyEvents(45) }).handlers);
    renderSecurity(<EventsSection />);
    await within(events()).findAllByTestId('event-row');
    expect(rows()).toHaveLength(20);
    expect(range()).toHaveTextContent('1–20 of 45');
    const user = person();
    const previous = () => within(events()).getByRole('button', { name: 'Previous' });
    const next = () => within(events()).getByRole('button', { name: 'Next' });
    expect(previous()).toBeDisabled();

    await user.click(next());
    await waitFor(() => expect(range()).toHaveTextContent('21–40 of 45'));
    expect(eventQueries(fetchMock).at(-1)).toEqual({ limit: '20', offset: '20' });
    await user.click(next());
    await waitFor(() => expect(rows()).toHaveLength(5));
    expect(range()).toHaveTextContent('41–45 of 45');
    expect(rows()[0]).toHaveTextContent('Event number 5.');
    expect(eventQueries(fetchMock).at(-1)).toEqual({ limit: '20', offset: '40' });
    expect(next()).toBeDisabled();

    await user.click(previous());
    await waitFor(() => expect(range()).toHaveTextContent('21–40 of 45'));
    expect(eventQueries(fetchMock).at(-1)).toEqual({ limit: '20', offset: '20' });

    await user.selectOptions(within(events()).getByRole('combobox', { name: 'Severity' }), 'low');
    await waitFor(() => expect(range()).toHaveTextContent('1–20 of 45'));
    expect(eventQueries(fetchMock).at(-1)).toEqual({ severity: 'low', limit: '20', offset: '0' });
  });

  it("says 'Failed to load security events' with the server's reason", async () => {
    stubFetch({
      'GET /api/v1/security/events': () => fail(500, 'The event log is unavailable.', 'INTERNAL'),
    });
    renderSecurity(<EventsSection />);
    const error = await within(events()).findByTestId('events-error');
    expect(error).toHaveTextContent(SECURITY_MESSAGES.loadEventsFailed);
    expect(error).toHaveTextContent('The event log is unavailable.');
  });

  it("says 'Failed to load security events' alone when the server gives no reason", async () => {
    stubFetch({ 'GET /api/v1/security/events': () => new Response('', { status: 502 }) });
    renderSecurity(<EventsSection />);
    const error = await within(events()).findByTestId('events-error');
    expect(error).toHaveTextContent(SECURITY_MESSAGES.loadEventsFailed);
    expect(within(error).getAllByText(SECURITY_MESSAGES.loadEventsFailed)).toHaveLength(1);
  });

  it('ignores a 404: no events and no error', async () => {
    stubFetch({ 'GET /api/v1/security/events': () => fail(404, 'Not found', 'NOT_FOUND') });
    renderSecurity(<EventsSection />);
    expect(await within(events()).findByTestId('events-empty')).toHaveTextContent(
      'No security events yet.',
    );
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows an empty log', async () => {
    stubFetch({
      'GET /api/v1/security/events': () => ok({ events: [], total: 0, limit: 20, offset: 0 }),
    });
    renderSecurity(<EventsSection />);
    expect(await within(events()).findByTestId('events-empty')).toHaveTextContent(
      'No security events yet.',
    );
    expect(within(events()).queryByTestId('events-range')).toBeNull();
  });

  it('exports JSON and CSV through plain download links', async () => {
    stubFetch(sampleSecurityServer().handlers);
    renderSecurity(<EventsSection />);
    const json = within(events()).getByRole('link', { name: 'Export JSON' });
    const csv = within(events()).getByRole('link', { name: 'Export CSV' });
    expect(json).toHaveAttribute('href', '/api/v1/security/export?format=json');
    expect(csv).toHaveAttribute('href', '/api/v1/security/export?format=csv');
    expect(json).toHaveAttribute('download');
    await within(events()).findAllByTestId('event-row');
  });
});

import { SECURITY_MESSAGES } from '@perch/shared';
import { within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, requestsTo, stubFetch } from '@/test/fetch-stub';
import { securityServer } from '../test/security-fixtures';
import { card, person, renderSecurity, withCsrfCookie } from '../test/render-security';
import { IncidentCard } from './incident-card';

const incident = () => card('Report an incident');

describe('Report an incident', () => {
  withCsrfCookie();

  it('asks for a description first', async () => {
    const fetchMock = stubFetch(securityServer().handlers);
    renderSecurity(<IncidentCard />);
    await person().click(within(incident()).getByRole('button', { name: 'Send report' }));
    expect(
      within(incident()).getByText(SECURITY_MESSAGES.incidentDescriptionRequired),
    ).toBeVisible();
    expect(requestsTo(fetchMock, 'POST /api/v1/security/incidents')).toHaveLength(0);
  });

  it('sends type, severity and description, and shows the server’s message', async () => {
    const fetchMock = stubFetch(securityServer().handlers);
    renderSecurity(<IncidentCard />);
    const user = person();
    const form = within(incident());
    await user.selectOptions(form.getByRole('combobox', { name: 'What happened' }), 'lost_device');
    await user.selectOptions(form.getByRole('combobox', { name: 'How serious' }), 'high');
    await user.type(
      form.getByRole('textbox', { name: 'Description' }),
      'Laptop stolen on a train.',
    );
    await user.click(form.getByRole('button', { name: 'Send report' }));

    const success = await form.findByTestId('incident-outcome-success');
    expect(success).toHaveTextContent(SECURITY_MESSAGES.incidentReported);
    expect(success).toHaveTextContent('Reference #41.');
    expect(requestsTo(fetchMock, 'POST /api/v1/security/incidents')[0]?.body).toEqual({
      type: 'lost_device',
      severity: 'high',
      description: 'Laptop stolen on a train.',
    });
    expect(form.getByRole('textbox', { name: 'Description' })).toHaveValue('');
  });

  it('says why the report could not be sent', async () => {
    stubFetch({
      'POST /api/v1/security/incidents': () => fail(429, 'Too many requests.', 'RATE_LIMITED'),
    });
    renderSecurity(<IncidentCard />);
    const user = person();
    await user.type(within(incident()).getByRole('textbox', { name: 'Description' }), 'Odd.');
    await user.click(within(incident()).getByRole('button', { name: 'Send report' }));
    const error = await within(incident()).findByTestId('incident-outcome-error');
    expect(error).toHaveTextContent('The report could not be sent.');
    expect(error).toHaveTextContent('Too many requests.');
  });
});

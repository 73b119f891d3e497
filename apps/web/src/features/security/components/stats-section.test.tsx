import { SECURITY_MESSAGES, SECURITY_REFRESH_MS } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, requestsTo, stubFetch } from '@/test/fetch-stub';
import { loginHistoryQueryOptions } from '../api/get-login-history';
import { securityEventsQueryOptions } from '../api/get-security-events';
import { securityStatsQueryOptions } from '../api/get-security-stats';
import { sessionsQueryOptions } from '../api/get-sessions';
import { makeStats, sampleSecurityServer, securityServer } from '../test/security-fixtures';
import { card, person, renderSecurity } from '../test/render-security';
import { StatsSection } from './stats-section';

const stats = () => card('Overview');
const count = (key: string) => within(stats()).getByTestId(`stat-${key}`);

describe('Security overview', () => {
  it('shows the last 24 hours first: counts and a low risk', async () => {
    const fetchMock = stubFetch(sampleSecurityServer().handlers);
    renderSecurity(<StatsSection />);
    expect(await within(stats()).findByTestId('stat-failedLogins')).toHaveTextContent('2');
    expect(count('successfulLogins')).toHaveTextContent('4');
    expect(count('activeSessions')).toHaveTextContent('3');
    expect(count('blockedRequests')).toHaveTextContent('1');
    expect(within(stats()).getByTestId('risk-level')).toHaveAttribute('data-level', 'low');
    expect(within(stats()).getByTestId('risk-level')).toHaveTextContent('Low');
    expect(within(stats()).getByText('Nothing unusual in this period.')).toBeVisible();
    expect(within(stats()).getByRole('radio', { name: '24 hours' })).toBeChecked();
    const [request] = requestsTo(fetchMock, 'GET /api/v1/security/stats');
    expect(request?.query.get('timeRange')).toBe('24h');
  });

  it('asks for the chosen time range and shows its counts, risk and reasons', async () => {
    const fetchMock = stubFetch(sampleSecurityServer().handlers);
    renderSecurity(<StatsSection />);
    await within(stats()).findByTestId('stat-failedLogins');
    const user = person();

    await user.click(within(stats()).getByRole('radio', { name: '7 days' }));
    await waitFor(() => expect(count('failedLogins')).toHaveTextContent('7'));
    expect(count('successfulLogins')).toHaveTextContent('19');
    expect(within(stats()).getByTestId('risk-level')).toHaveAttribute('data-level', 'medium');
    expect(within(stats()).getByText('7 failed sign-ins in the last 7 days.')).toBeVisible();

    await user.click(within(stats()).getByRole('radio', { name: '30 days' }));
    await waitFor(() => expect(count('failedLogins')).toHaveTextContent('23'));
    expect(within(stats()).getByTestId('risk-level')).toHaveAttribute('data-level', 'high');
    expect(within(stats()).getByTestId('risk-level')).toHaveTextContent('High');
    expect(
      requestsTo(fetchMock, 'GET /api/v1/security/stats').map((request) =>
        request.query.get('timeRange'),
      ),
    ).toEqual(['24h', '7d', '30d']);
  });

  it('marks a critical risk red with the reasons the server gives', async () => {
    const server = securityServer();
    server.state.stats['24h'] = makeStats({
      riskLevel: 'critical',
      riskReasons: [SECURITY_MESSAGES.alertInsecureTransport],
      secureTransport: false,
    });
    stubFetch(server.handlers);
    renderSecurity(<StatsSection />);
    const risk = await within(stats()).findByTestId('risk-level');
    expect(risk).toHaveAttribute('data-level', 'critical');
    expect(within(risk).getByText('Critical').closest('[data-severity]')).toHaveAttribute(
      'data-severity',
      'critical',
    );
    expect(within(risk).getByText(SECURITY_MESSAGES.alertInsecureTransport)).toBeVisible();
  });

  it('refreshes the statistics, sessions, sign-ins and events every 60 seconds', () => {
    expect(SECURITY_REFRESH_MS).toBe(60_000);
    for (const options of [
      securityStatsQueryOptions('24h'),
      sessionsQueryOptions(),
      loginHistoryQueryOptions(),
      securityEventsQueryOptions({ limit: 20, offset: 0 }),
    ]) {
      expect(options.refetchInterval).toBe(SECURITY_REFRESH_MS);
    }
  });

  it('says why it failed, and retries', async () => {
    const server = sampleSecurityServer();
    let failing = true;
    stubFetch({
      ...server.handlers,
      'GET /api/v1/security/stats': (request) =>
        failing
          ? fail(500, 'The database is busy.', 'INTERNAL')
          : server.handlers['GET /api/v1/security/stats']!(request),
    });
    renderSecurity(<StatsSection />);
    const error = await within(stats()).findByTestId('stats-error');
    expect(error).toHaveTextContent('Failed to load security statistics');
    expect(error).toHaveTextContent('The database is busy.');
    failing = false;
    await person().click(within(error).getByRole('button', { name: 'Retry' }));
    expect(await within(stats()).findByTestId('stat-failedLogins')).toHaveTextContent('2');
  });

  it('ignores a 404: a server without the security area has no statistics', async () => {
    stubFetch({ 'GET /api/v1/security/stats': () => fail(404, 'Not found', 'NOT_FOUND') });
    renderSecurity(<StatsSection />);
    expect(await within(stats()).findByTestId('stats-unavailable')).toBeVisible();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

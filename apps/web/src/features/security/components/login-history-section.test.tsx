import { LOGIN_HISTORY_DEFAULT_LIMIT } from '@perch/shared';
import { within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, ok, requestsTo, stubFetch } from '@/test/fetch-stub';
import { sampleSecurityServer } from '../test/security-fixtures';
import { card, renderSecurity } from '../test/render-security';
import { LoginHistorySection } from './login-history-section';

const history = () => card('Sign-in history');

describe('Sign-in history', () => {
  it('lists the latest 20 attempts: time, success or failure, device and IP', async () => {
    const fetchMock = stubFetch(sampleSecurityServer().handlers);
    renderSecurity(<LoginHistorySection />);
    const rows = await within(history()).findAllByTestId('login-history-row');
    expect(rows).toHaveLength(3);
    const failed = within(history()).getByRole('row', { name: 'Failed: Unknown device' });
    expect(failed).toHaveTextContent('192.0.2.200');
    expect(within(failed).getByText('Failed')).toBeVisible();
    expect(rows[0]).toHaveTextContent('Success');
    expect(rows[0]).toHaveTextContent('Firefox on macOS');
    expect(rows[0]).toHaveTextContent('Mar 10, 2025');
    expect(requestsTo(fetchMock, 'GET /api/v1/security/login-history')[0]?.query.get('limit')).toBe(
      String(LOGIN_HISTORY_DEFAULT_LIMIT),
    );
  });

  it('says when there is nothing yet', async () => {
    stubFetch({ 'GET /api/v1/security/login-history': () => ok({ entries: [] }) });
    renderSecurity(<LoginHistorySection />);
    expect(await within(history()).findByTestId('login-history-empty')).toHaveTextContent(
      'No sign-in attempts yet.',
    );
  });

  it('says why it could not load', async () => {
    stubFetch({
      'GET /api/v1/security/login-history': () => fail(503, 'Database unavailable.', 'DB_DOWN'),
    });
    renderSecurity(<LoginHistorySection />);
    const error = await within(history()).findByTestId('login-history-error');
    expect(error).toHaveTextContent('Failed to load sign-in history');
    expect(error).toHaveTextContent('Database unavailable.');
  });
});

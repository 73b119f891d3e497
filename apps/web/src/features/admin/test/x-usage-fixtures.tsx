import { Stack } from '@mantine/core';
import type { XUsageSummary } from '@perch/shared';
import { ok, stubFetch } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { AdminBannerProvider } from '../components/admin-banner-provider';
import { XApiStatusBanner } from '../components/x-api-status-banner';
import { XUsageSection } from '../components/x-usage-section';

type Overrides = Omit<Partial<XUsageSummary>, 'budget' | 'credentials'> & {
  budget?: Partial<XUsageSummary['budget']>;
  credentials?: Partial<XUsageSummary['credentials']>;
};

/** The usage of an x-api server at 2025-03-10 12:00 UTC, nothing read yet, unless overridden. */
export function makeXUsage({ budget, credentials, ...overrides }: Overrides = {}): XUsageSummary {
  return {
    source: 'x-api',
    generated_at: '2025-03-10T12:00:00.000Z',
    today: { day: '2025-03-10', post_reads: 0, user_reads: 0, usd: 0 },
    month: { month: '2025-03', post_reads: 0, user_reads: 0, usd: 0, projected_usd: 0 },
    handles: [],
    prices: { post_read_usd: 0.005, user_read_usd: 0.01 },
    rate_status: null,
    metric_refresh: {
      preset: 'standard',
      typical_handle: {
        posts_per_day: 10,
        post_reads_per_day: 30,
        user_reads_per_day: 1,
        month_usd: 4.8,
      },
    },
    ...overrides,
    budget: {
      daily_limit_usd: null,
      paused: false,
      cut: [],
      resumes_at: '2025-03-11T00:00:00.000Z',
      ...budget,
    },
    credentials: {
      state: 'ok',
      detail: null,
      since: null,
      next_probe_at: null,
      ...credentials,
    },
  };
}

/** The banner and the usage card as the admin page places them. */
export function renderXUsage() {
  return renderRoute(
    '/admin',
    <AdminBannerProvider>
      <Stack gap="lg">
        <XApiStatusBanner />
        <XUsageSection />
      </Stack>
    </AdminBannerProvider>,
  );
}

/** The route of the usage, as the fetch stub keys it. */
export const X_USAGE_ROUTE = 'GET /api/v1/admin/x-usage';

/** Serves `usage` as the server's answer and renders the banner and the usage card. */
export function renderXUsageOf(usage: XUsageSummary) {
  const fetchMock = stubFetch({ [X_USAGE_ROUTE]: () => ok(usage) });
  return { fetchMock, ...renderXUsage() };
}

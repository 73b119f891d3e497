import { formatCount } from '@/lib/format';

/**
 * Words of the X API usage card that are not messages of the contract (those are
 * X_USAGE_MESSAGES of @perch/shared).
 */
export const X_USAGE_TEXTS = {
  title: 'X API usage',
  description: 'X bills every post and user it returns, each once per UTC day.',
  loading: 'Loading X API usage',
  today: 'Today (UTC)',
  month: 'This month',
  projected: 'Projected this month',
  projectedHint: 'at the pace so far',
  dailyLimit: 'Daily limit',
  budgetUsed: 'Share of the daily limit spent',
  budgetSpent: (spent: string, limit: string, percent: number) =>
    `${spent} of ${limit} spent today (${percent}%)`,
  allRunning: 'Everything runs: the limit cuts the work below in this order as it fills.',
  cutAt: (label: string, percent: number, cut: boolean) =>
    `${label}: ${cut ? 'stopped' : 'stops'} at ${percent}%`,
  perHandle: 'Cost per handle',
  rateLimits: 'Rate limits',
  appDay: 'App, 24 hours',
  left: (remaining: number | null, limit: number | null) =>
    remaining === null || limit === null
      ? 'not reported'
      : `${formatCount(remaining)} of ${formatCount(limit)} left`,
  prices: (post: string, user: string) =>
    `Prices: ${post} per post read, ${user} per user read, each billed once per UTC day.`,
} as const;

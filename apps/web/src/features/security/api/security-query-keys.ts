import type { SecurityEventsQuery, SecurityTimeRange } from '@perch/shared';

/** Cache keys of the security area; every key starts with 'security' so one prefix refreshes all. */
export const securityQueryKeys = {
  all: ['security'] as const,
  stats: (timeRange: SecurityTimeRange) => ['security', 'stats', timeRange] as const,
  events: (query: SecurityEventsQuery) => ['security', 'events', query] as const,
  sessions: ['security', 'sessions'] as const,
  loginHistory: (limit: number) => ['security', 'login-history', limit] as const,
  settings: ['security', 'settings'] as const,
};

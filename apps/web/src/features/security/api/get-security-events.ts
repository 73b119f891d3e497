import {
  securityEventsResponseSchema,
  type SecurityEvent,
  type SecurityEventsQuery,
} from '@perch/shared';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiClient } from '@/lib/api-client';
import { SECURITY_REFRESH_MS } from '@/lib/polling/intervals';
import { orWhenNotFound } from './not-found';
import { securityQueryKeys } from './security-query-keys';

export interface SecurityEventsPage {
  events: SecurityEvent[];
  total: number;
  limit: number;
  offset: number;
}

/** The query string of an events request: only the filters that are set. */
export function securityEventsSearch(query: SecurityEventsQuery): URLSearchParams {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  return search;
}

/**
 * GET /security/events with optional eventType, severity, startDate, endDate, limit and offset,
 * newest first. A 404 reads as no events.
 */
export function getSecurityEvents(
  query: SecurityEventsQuery,
  signal?: AbortSignal,
): Promise<SecurityEventsPage> {
  const search = securityEventsSearch(query).toString();
  return orWhenNotFound(
    apiClient.get(`/security/events${search ? `?${search}` : ''}`, securityEventsResponseSchema, {
      signal,
    }),
    { events: [], total: 0, limit: Number(query.limit ?? 0), offset: Number(query.offset ?? 0) },
  );
}

/** Refreshed every 60 s; another page or filter keeps the rows shown until its own arrive. */
export function securityEventsQueryOptions(query: SecurityEventsQuery) {
  return queryOptions({
    queryKey: securityQueryKeys.events(query),
    queryFn: ({ signal }) => getSecurityEvents(query, signal),
    refetchInterval: SECURITY_REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}

export function useSecurityEventsQuery(query: SecurityEventsQuery) {
  return useQuery(securityEventsQueryOptions(query));
}

import { incidentResponseSchema, type incidentRequestSchema } from '@perch/shared';
import type { z } from 'zod';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { useSecurityMutation } from './security-mutation';

export type IncidentReport = z.output<typeof incidentRequestSchema>;

/** POST /security/incidents: records the report; answers its id. */
export function reportIncident(report: IncidentReport): Promise<ApiAnswer<{ id: number }>> {
  return apiClient.requestWithMessage('/security/incidents', {
    method: 'POST',
    body: report,
    schema: incidentResponseSchema,
  });
}

export function useReportIncidentMutation() {
  return useSecurityMutation('report-incident', reportIncident);
}

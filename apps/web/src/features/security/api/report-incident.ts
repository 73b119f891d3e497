import { incidentResponseSchema, type incidentRequestSchema } from '@perch/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiClient, type ApiAnswer } from '@/lib/api-client';
import { securityQueryKeys } from './security-query-keys';

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
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['security', 'report-incident'],
    mutationFn: reportIncident,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: securityQueryKeys.all }),
  });
}

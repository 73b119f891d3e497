import { apiUrl } from '@/lib/api-url';

export type AlertsExportFormat = 'json' | 'csv';

/**
 * GET /alerts/export?format: the rules and every firing as a file the browser downloads by
 * following a plain link (a GET with the session cookie), as the Security page's export does.
 */
export function alertsExportUrl(format: AlertsExportFormat): string {
  return apiUrl(`/alerts/export?${new URLSearchParams({ format }).toString()}`);
}

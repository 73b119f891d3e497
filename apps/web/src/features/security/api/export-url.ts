import { apiUrl } from '@/lib/api-url';

export type SecurityExportFormat = 'json' | 'csv';

/**
 * GET /security/export?format: a file the browser downloads by following a plain link (a GET
 * with the session cookie), so no script holds the whole export in memory.
 */
export function securityExportUrl(format: SecurityExportFormat): string {
  return apiUrl(`/security/export?${new URLSearchParams({ format }).toString()}`);
}

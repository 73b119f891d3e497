/** A backfill status as words: 'in_progress' reads 'in progress'. */
export function formatStatus(status: string): string {
  return status.replaceAll('_', ' ');
}

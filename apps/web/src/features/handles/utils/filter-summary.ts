import { isFilterActive, type NotificationFilter } from '@perch/shared';

/** Terms a summary names before "+N". */
const SHOWN = 3;

function terms(list: readonly string[]): string {
  const shown = list.slice(0, SHOWN).map((term) => `“${term}”`);
  const more = list.length - SHOWN;
  return `${shown.join(' or ')}${more > 0 ? ` +${more}` : ''}`;
}

/**
 * One line saying what a handle's filter lets through, e.g. 'With “launch” or “landing” ·
 * without “giveaway” · media only'; null when the filter holds nothing back.
 */
export function filterSummary(filter: NotificationFilter | undefined): string | null {
  if (!filter || !isFilterActive(filter)) return null;
  const parts: string[] = [];
  if (filter.include.length > 0) parts.push(`with ${terms(filter.include)}`);
  if (filter.exclude.length > 0) parts.push(`without ${terms(filter.exclude)}`);
  if (filter.media_only) parts.push('media only');
  const text = parts.join(' · ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

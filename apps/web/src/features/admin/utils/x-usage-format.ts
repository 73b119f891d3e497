import { formatCount } from '@/lib/format';

const CENTS = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
const FRACTIONS = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
});

/**
 * US dollars as the usage card shows them: cents from a dollar up ('$3.10', '$1,204.50'), and up
 * to four decimals below, where reads cost fractions of a cent ('$0.005', '$0.0125').
 */
export function formatUsd(usd: number): string {
  return Math.abs(usd) >= 1 ? CENTS.format(usd) : FRACTIONS.format(usd);
}

const plural = (count: number, one: string) =>
  `${formatCount(count)} ${one}${count === 1 ? '' : 's'}`;

/** Billed reads in words: '1,204 post reads · 1 user read'. */
export function formatReads(postReads: number, userReads: number): string {
  return `${plural(postReads, 'post read')} · ${plural(userReads, 'user read')}`;
}

/** A share of the daily limit as a whole percent, 0-100 for a progress bar. */
export function budgetPercent(spentUsd: number, limitUsd: number): number {
  if (limitUsd <= 0) return 100;
  return Math.max(0, Math.min(100, Math.floor((spentUsd / limitUsd) * 100 + 1e-9)));
}

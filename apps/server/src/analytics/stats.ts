/** Shared arithmetic of the blocks, so every block divides by zero the same way. */

/** sum / count, or 0 when there is nothing to average (docs/analytics.md, Window). */
export function average(sum: number, count: number): number {
  return count === 0 ? 0 : sum / count;
}

/** value / followers x 100, or null when followers are unknown or 0 (a rate needing followers). */
export function perFollowers(value: number, followers: number | null): number | null {
  return followers === null || followers === 0 ? null : (value / followers) * 100;
}

/** The median of some numbers (mean of the middle two for an even count); 0 for none. */
export function median(values: ArrayLike<number>): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Orders decimal tweet ids by value, as BigInt would, without allocating one: longer (after any
 * leading zeros) is larger, equal lengths compare digit by digit.
 */
export function compareIds(a: string, b: string): number {
  const aStart = firstSignificantDigit(a);
  const bStart = firstSignificantDigit(b);
  const lengthDifference = a.length - aStart - (b.length - bStart);
  if (lengthDifference !== 0) return lengthDifference;
  for (let i = 0; i < a.length - aStart; i++) {
    const difference = a.charCodeAt(aStart + i) - b.charCodeAt(bStart + i);
    if (difference !== 0) return difference;
  }
  return 0;
}

function firstSignificantDigit(id: string): number {
  let index = 0;
  while (index < id.length - 1 && id.charCodeAt(index) === 48 /* '0' */) index += 1;
  return index;
}

/** Code-unit order (plain `<`), the same on every machine unlike localeCompare. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

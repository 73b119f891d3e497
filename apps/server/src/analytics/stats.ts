/** Shared arithmetic of the blocks, so every block divides by zero the same way. */

/** sum / count, or 0 when there is nothing to average (docs/analytics.md, Window). */
export function average(sum: number, count: number): number {
  return count === 0 ? 0 : sum / count;
}

/** value / followers x 100, or null when followers are unknown or 0 (a rate needing followers). */
export function perFollowers(value: number, followers: number | null): number | null {
  return followers === null || followers === 0 ? null : (value / followers) * 100;
}

/**
 * The median of some numbers (mean of the middle two for an even count); 0 for none. The middle
 * is selected in linear time instead of sorting everything (a sort of 100,000 engagements was
 * most of the viral block). NaN and -0 fall back to the sort, whose order sees them; a comparison
 * does not.
 */
export function median(values: ArrayLike<number>): number {
  if (values.length === 0) return 0;
  const copy = Float64Array.from(values);
  const middle = copy.length >> 1;
  if (copy.some((value) => value !== value || Object.is(value, -0))) {
    copy.sort();
    return copy.length % 2 === 1 ? copy[middle]! : (copy[middle - 1]! + copy[middle]!) / 2;
  }
  const upper = selectInPlace(copy, middle);
  if (copy.length % 2 === 1) return upper;
  // Selection leaves everything before the middle no larger than it: the lower middle is their
  // largest.
  let lower = copy[0]!;
  for (let i = 1; i < middle; i++) if (copy[i]! > lower) lower = copy[i]!;
  return (lower + upper) / 2;
}

/**
 * The value that would be at `k` if `values` were sorted ascending (Hoare's selection, as Wirth
 * writes it); reorders `values` so that no value before `k` is larger and none after is smaller.
 */
function selectInPlace(values: Float64Array, k: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >> 1]!;
    let i = low;
    let j = high;
    do {
      while (values[i]! < pivot) i += 1;
      while (pivot < values[j]!) j -= 1;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i += 1;
        j -= 1;
      }
    } while (i <= j);
    if (j < k) low = i;
    if (k < i) high = j;
  }
  return values[k]!;
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

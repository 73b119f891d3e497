// Small numeric helpers the benchmark reports share.

/** Waits `ms` milliseconds. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The nearest-rank `p`th percentile (0-100) of `values`; null when there are none. */
export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The middle value of `values` (of an even count, the upper of the two in the middle). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

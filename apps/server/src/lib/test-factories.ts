import { expect } from 'vitest';

/** The one JSON log line written, parsed; fails the test when there is not exactly one. */
export function onlyLogLine(lines: readonly string[]): Record<string, unknown> {
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

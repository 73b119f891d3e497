import {
  ERROR_PATTERN_KEY_LENGTH,
  ERROR_PATTERN_MAP_CAP,
  ERROR_PATTERN_MAP_TRIM_TO,
  ERROR_STORM_THRESHOLD,
  ERROR_STORM_WINDOW_MS,
} from '@perch/shared';

/** What the detector reads of a failure. */
export interface ErrorLike {
  message: string;
  /** HTTP status, when there is one (0 for no response). */
  status?: number;
}

/** A failure's pattern: its status (if any) and the first 50 characters of its message. */
export function errorPatternKey(error: ErrorLike): string {
  const head = error.message.slice(0, ERROR_PATTERN_KEY_LENGTH);
  return error.status === undefined ? head : `${error.status}:${head}`;
}

interface PatternEntry {
  count: number;
  windowStart: number;
}

export interface ErrorStormOptions {
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * Spots error storms: the same pattern 5 or more times within 60 s.
 * Each pattern counts in its own 60 s window from its first occurrence. At most 100 patterns
 * are kept; beyond that the map is trimmed to the 50 most recently seen.
 */
export class ErrorStormDetector {
  private readonly now: () => number;
  /** Insertion order is recency order: a pattern seen again moves to the end. */
  private readonly patterns = new Map<string, PatternEntry>();

  constructor(options: ErrorStormOptions = {}) {
    this.now = options.now ?? (() => Date.now());
  }

  /** Counts one failure; true when its pattern is now a storm. */
  record(error: ErrorLike): boolean {
    const key = errorPatternKey(error);
    const now = this.now();
    const previous = this.patterns.get(key);
    const entry =
      previous && now - previous.windowStart < ERROR_STORM_WINDOW_MS
        ? { count: previous.count + 1, windowStart: previous.windowStart }
        : { count: 1, windowStart: now };
    this.patterns.delete(key);
    this.patterns.set(key, entry);
    if (this.patterns.size > ERROR_PATTERN_MAP_CAP) this.trim();
    return entry.count >= ERROR_STORM_THRESHOLD;
  }

  /** Whether this failure's pattern is a storm now, without counting it. */
  isStorm(error: ErrorLike): boolean {
    const entry = this.patterns.get(errorPatternKey(error));
    if (!entry || this.now() - entry.windowStart >= ERROR_STORM_WINDOW_MS) return false;
    return entry.count >= ERROR_STORM_THRESHOLD;
  }

  /** Patterns currently tracked. */
  get size(): number {
    return this.patterns.size;
  }

  clear(): void {
    this.patterns.clear();
  }

  private trim(): void {
    for (const key of this.patterns.keys()) {
      if (this.patterns.size <= ERROR_PATTERN_MAP_TRIM_TO) break;
      this.patterns.delete(key);
    }
  }
}

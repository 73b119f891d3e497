import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as intervals from './intervals';

/** apps/web/src */
const SRC = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('polling intervals', () => {
  it('keeps the numbers the dashboard polls at', () => {
    expect({ ...intervals }).toMatchObject({
      HANDLES_POLL_COLLECTING_MS: 3_000,
      HANDLES_POLL_IDLE_MS: 30_000,
      PROGRESS_POLL_MS: 2_000,
      DEMO_PROGRESS_POLL_IDLE_MS: 10_000,
      ANALYTICS_COLLECTING_POLL_MS: 5_000,
      PROCESSES_POLL_MS: 10_000,
      X_WEB_ACCOUNTS_POLL_MS: 30_000,
      X_USAGE_POLL_MS: 30_000,
      CHALLENGE_POLL_MS: 30_000,
      CHALLENGE_REFETCH_AFTER_SUBMIT_MS: 5_000,
      DELIVERY_LOG_POLL_MS: 10_000,
      SETTINGS_FETCH_MIN_GAP_MS: 5_000,
      ALERTS_POLL_MS: 60_000,
      SECURITY_REFRESH_MS: 60_000,
      SESSION_REVALIDATION_MS: 30 * 60_000,
      HEALTH_MONITOR_INTERVAL_MS: 30_000,
      NETWORK_PROBE_INTERVAL_MS: 30_000,
      VISIBILITY_CHECK_INTERVAL_MS: 60_000,
      HEARTBEAT_INTERVAL_MS: 15_000,
    });
  });

  it('are declared in this module only: no poll interval constant or number elsewhere in the web app', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    const strays = files.flatMap((path) => {
      const file = relative(SRC, path);
      if (file === join('lib', 'polling', 'intervals.ts')) return [];
      return readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          /const \w*POLL\w*_MS\s*=|refetchInterval:\s*[\d_]+\s*[,}]/.test(line)
            ? [`${file}:${index + 1}: ${line.trim()}`]
            : [],
        );
    });
    expect(strays).toEqual([]);
  });
});

// `npm run audit` and a step of `npm test`: the production dependencies against the registry's
// advisories (`npm audit --omit=dev`). Fails on a high or critical advisory. When the registry's
// audit service does not answer (offline, a mirror without it, an error), it says so and passes:
// a build must not fail for a service outside the project.
import { spawnSync } from 'node:child_process';
import { ROOT } from './lib.mjs';

const FAILING = ['high', 'critical'];
const TIMEOUT_MS = 60_000;

/** Runs the audit; returns the exit status for the caller (0: clean or not answered). */
export function audit() {
  const result = spawnSync('npm', ['audit', '--omit=dev', '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  let report;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    report = undefined;
  }
  const counts = report?.metadata?.vulnerabilities;
  if (!counts) {
    const why =
      result.error?.message ??
      report?.message ??
      (result.stderr.trim().split('\n')[0] || 'no answer');
    console.log(`npm audit could not run: the registry's audit service did not answer (${why}).`);
    console.log('Production dependencies were not audited; this does not fail the build.');
    return 0;
  }
  const found = Object.entries(counts)
    .filter(([level, count]) => level !== 'total' && count > 0)
    .map(([level, count]) => `${count} ${level}`);
  console.log(
    found.length === 0
      ? 'npm audit: no known advisory in the production dependencies.'
      : `npm audit: ${found.join(', ')} in the production dependencies.`,
  );
  const failing = FAILING.reduce((sum, level) => sum + (counts[level] ?? 0), 0);
  if (failing > 0) {
    for (const [name, entry] of Object.entries(report.vulnerabilities ?? {})) {
      if (FAILING.includes(entry.severity)) console.log(`  ${entry.severity}: ${name}`);
    }
    console.log('Run `npm audit --omit=dev` for the advisories and `npm audit fix` to update.');
    return 1;
  }
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(audit());

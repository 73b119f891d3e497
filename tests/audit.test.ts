/**
 * The dependency audit step (scripts/audit.mjs) against an `npm` that answers as the registry's
 * audit service can: a report with advisories, a clean report, or an error. The stand-in is a
 * real executable first on PATH; the script under test runs unchanged.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
// @ts-expect-error: a plain ES module of the build scripts, without types.
import { audit } from '../scripts/audit.mjs';

let bin: string;
let savedPath: string | undefined;
let printed: string[];

/** Makes `npm` print `answer` and exit with `status`. */
function npmAnswers(answer: unknown, status: number) {
  const file = path.join(bin, 'answer.json');
  fs.writeFileSync(file, typeof answer === 'string' ? answer : JSON.stringify(answer));
  fs.writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\ncat '${file}'\nexit ${status}\n`, {
    mode: 0o755,
  });
}

const report = (counts: Record<string, number>, vulnerabilities = {}) => ({
  vulnerabilities,
  metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, ...counts } },
});

beforeEach(() => {
  bin = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-audit-'));
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}:${savedPath ?? ''}`;
  printed = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => printed.push(line));
});

afterEach(() => {
  process.env.PATH = savedPath;
  vi.restoreAllMocks();
  fs.rmSync(bin, { recursive: true, force: true });
});

describe('npm run audit', () => {
  it('passes when no advisory concerns the production dependencies', () => {
    npmAnswers(report({}), 0);
    expect(audit()).toBe(0);
    expect(printed).toContain('npm audit: no known advisory in the production dependencies.');
  });

  it('fails on a high or critical advisory and names the package', () => {
    npmAnswers(
      report({ high: 1, low: 2 }, { 'left-pad': { severity: 'high' }, tiny: { severity: 'low' } }),
      1,
    );
    expect(audit()).toBe(1);
    expect(printed).toContain('npm audit: 2 low, 1 high in the production dependencies.');
    expect(printed).toContain('  high: left-pad');
    expect(printed.join('\n')).not.toContain('tiny');
  });

  it('passes on moderate advisories, and says so', () => {
    npmAnswers(report({ moderate: 3 }), 1);
    expect(audit()).toBe(0);
    expect(printed).toContain('npm audit: 3 moderate in the production dependencies.');
  });

  it('says the service did not answer, and passes, when the registry refuses the audit', () => {
    npmAnswers({ message: '405 Method Not Allowed - POST /advisories/bulk', statusCode: 405 }, 1);
    expect(audit()).toBe(0);
    expect(printed[0]).toContain("the registry's audit service did not answer (405 Method");
  });

  it('passes when npm prints nothing usable', () => {
    npmAnswers('npm error network', 1);
    expect(audit()).toBe(0);
    expect(printed[0]).toContain('audit service did not answer');
  });
});

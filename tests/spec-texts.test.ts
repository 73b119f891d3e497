/**
 * The spec's error catalogue against the code (docs/spec-notes.md, Error texts): every text of
 * tests/spec-texts/catalogue.ts is in the web, server or shared source, in the file the catalogue
 * names, or has a row in docs/spec-notes.md's Deliberate differences table saying why not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SPEC_TEXTS, type SpecText } from './spec-texts/catalogue';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['apps/web/src', 'apps/server/src', 'packages/shared/src'];

/** Production sources: .ts and .tsx files, without tests and test helpers. */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test' ? [] : sourceFiles(relative);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

/** The code without its comments: a text named only in a comment is not shown. */
function withoutComments(code: string): string {
  return code
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('//'))
    .join('\n');
}

const sources = new Map(
  SOURCE_DIRS.flatMap(sourceFiles).map((file) => [
    file,
    withoutComments(fs.readFileSync(path.join(ROOT, file), 'utf8')),
  ]),
);

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The text as a whole string literal (quotes, backticks or a regular expression's slashes on both
 * ends), each {placeholder} standing for any text of a template: 'Failed to remove handle' does
 * not count as found inside 'Failed to remove handle - please try again'.
 */
function literalPattern(entry: SpecText): RegExp {
  const parts = (entry.shownAs ?? entry.text).split(/\{[^}]*\}/).map(escape);
  return new RegExp(`['"\`/]${parts.join('[^\'"`\\n]*')}['"\`/]`);
}

function filesHolding(entry: SpecText): string[] {
  const pattern = literalPattern(entry);
  return [...sources].filter(([, code]) => pattern.test(code)).map(([file]) => file);
}

/** The first column of every row of docs/spec-notes.md's Deliberate differences table. */
function deviationRules(): string[] {
  const notes = fs.readFileSync(path.join(ROOT, 'docs/spec-notes.md'), 'utf8');
  const section = notes.split(/^## Deliberate differences$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*(Rule|-+)\s*\|/.test(line))
    .map((line) => line.split('|')[1] ?? '');
}

describe('the spec error catalogue', () => {
  const rules = deviationRules();
  const explained = (text: string) => rules.some((rule) => rule.includes(`'${text}'`));

  it('reads the sources and the deviation table', () => {
    expect(sources.size).toBeGreaterThan(100);
    expect(rules.length).toBeGreaterThan(0);
    expect(new Set(SPEC_TEXTS.map((entry) => entry.text)).size).toBe(SPEC_TEXTS.length);
  });

  it.each(SPEC_TEXTS.filter((entry) => entry.shownBy !== null))(
    "shows '$text' ($where) from $shownBy",
    (entry) => {
      expect(filesHolding(entry)).toContain(entry.shownBy);
    },
  );

  it.each(SPEC_TEXTS.filter((entry) => entry.shownBy === null))(
    "says in docs/spec-notes.md why '$text' ($where) is not shown",
    (entry) => {
      expect(explained(entry.text), `no Deliberate differences row quotes '${entry.text}'`).toBe(
        true,
      );
    },
  );

  it('has no deviation row for a text that is shown', () => {
    const shownButExplained = SPEC_TEXTS.filter(
      (entry) => entry.shownBy !== null && explained(entry.text),
    ).map((entry) => entry.text);
    expect(shownButExplained).toEqual([]);
  });
});

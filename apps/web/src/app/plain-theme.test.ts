import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_THEME,
  defaultCssVariablesResolver,
  mergeMantineTheme,
  toRgba,
} from '@mantine/core';
import { describe, expect, it } from 'vitest';
import { theme } from './theme';

// The plain pages (sign-in, registration, loaders, error page) are drawn with the variables of
// plain-theme.css instead of Mantine's: each --perch-X must be what Mantine makes of --mantine-X
// with app/theme.ts, so those pages look like the rest of the app in both schemes.

const css = readFileSync(join(__dirname, 'plain-theme.css'), 'utf8');

/** The --perch-* declarations of the block whose selector is `selector`. */
function declarations(selector: string): Map<string, string> {
  const start = css.indexOf(`${selector} {`);
  if (start < 0) throw new Error(`plain-theme.css has no block for ${selector}`);
  const body = css.slice(start + selector.length + 2, css.indexOf('}', start));
  const found = new Map<string, string>();
  for (const match of body.matchAll(/(--perch-[\w-]+):\s*([^;]+);/g)) {
    found.set(match[1]!, match[2]!.replace(/\s+/g, ' ').trim());
  }
  return found;
}

const resolved = defaultCssVariablesResolver(mergeMantineTheme(DEFAULT_THEME, theme));

/** The value of a --mantine-* variable in a scheme, its var() and scale calc()s worked out. */
function mantineValue(name: string, scheme: 'dark' | 'light'): string | undefined {
  const variables: Record<string, string> = { ...resolved.variables, ...resolved[scheme] };
  const resolve = (value: string, depth: number): string => {
    if (depth > 10) throw new Error(`${name} refers to itself`);
    const expanded = value.replace(/var\((--[\w-]+)\)/g, (whole, inner: string) => {
      if (inner === '--mantine-scale') return whole;
      const next = variables[inner];
      if (next === undefined) throw new Error(`${name}: Mantine has no ${inner}`);
      return resolve(next, depth + 1);
    });
    return expanded.replace(/calc\(([\d.-]+rem) \* var\(--mantine-scale\)\)/g, '$1');
  };
  const value = variables[name];
  return value === undefined ? undefined : resolve(value, 0);
}

const isColor = (value: string) => /^(#|rgba?\()/.test(value);
const normalise = (value: string) =>
  isColor(value)
    ? JSON.stringify(toRgba(value))
    : value
        .replace(/["']/g, '')
        .replace(/\s+/g, ' ')
        .replace(/(^|[\s(,-])0(\.\d)/g, '$1$2');

describe('plain-theme.css', () => {
  const blocks = [
    [':root', 'dark'],
    [":root[data-mantine-color-scheme='dark']", 'dark'],
    [":root[data-mantine-color-scheme='light']", 'light'],
  ] as const;

  for (const [selector, scheme] of blocks) {
    it(`holds the theme's values in ${selector}`, () => {
      const ours = declarations(selector);
      expect(ours.size).toBeGreaterThan(0);
      for (const [name, value] of ours) {
        const mantine = mantineValue(name.replace('--perch-', '--mantine-'), scheme);
        expect(mantine, `${name} has no --mantine- counterpart`).toBeDefined();
        expect(normalise(value), name).toBe(normalise(mantine!));
      }
    });
  }

  it('gives both schemes the same variables', () => {
    const dark = [...declarations(":root[data-mantine-color-scheme='dark']").keys()];
    const light = [...declarations(":root[data-mantine-color-scheme='light']").keys()];
    expect(light).toEqual(dark);
  });
});

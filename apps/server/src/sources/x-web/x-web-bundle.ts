/**
 * The GraphQL operations as x.com's client bundle declares them, and the feature values its
 * page holds. Facts from twscrape 0.20 (scripts/update-gql-ops.py) and RSSHub:
 *
 * - The legacy build (webpack) declares an operation as
 *   `{queryId:"<id>",operationName:"<Name>",operationType:"query",metadata:{featureSwitches:[..],fieldToggles:[..]}}`.
 * - The current build (Vite) as `params:{id:"<id>",metadata:{..},name:"<Name>",operationKind:"query",..}`,
 *   where `metadata` may come before or after `name`.
 * - An operation lists only the names of its feature switches; their values are in the page's
 *   `window.__INITIAL_STATE__`: `"featureSwitch":{"defaultConfig":{"<name>":{"value":true}},
 *   "user":{"config":{..}}}` (the signed-in user's values win). A switch with no value anywhere
 *   takes the value shipped with Perch, else false; so does a field toggle (the page has none).
 *
 * Parsing is pure; `readClientOperations` is the one function here that reads the network.
 */
import type { XWebOperation } from '@perch/shared';
import type { Cookies } from './x-web-http.js';
import { loadClientPage, walkScripts, type ClientPageOptions } from './x-web-client-page.js';
import { X_WEB_DEFAULT_OPERATIONS, type OperationValues } from './x-web-operation-defaults.js';

/** One operation as the bundle declares it: its id and the names of its switches. */
export interface BundleOperation {
  queryId: string;
  featureSwitches: string[];
  fieldToggles: string[];
}

/** How far past its start a declaration is read at most (a long feature list is ~4,000). */
const MAX_DECLARATION_CHARS = 40_000;
/** A key, bare or quoted, as minifiers write it. */
const key = (name: string) => `["']?${name}["']?\\s*:\\s*`;
/** A string value in any of JavaScript's quotes (group: the text). */
const STRING = `(?:"([^"\\\\]*)"|'([^'\\\\]*)'|\`([^\`\\\\]*)\`)`;
/** Where a declaration starts: the legacy `queryId:"<id>"`, the current `params:{id:"<id>"`. */
const LEGACY_START = new RegExp(`${key('queryId')}${STRING}`, 'g');
const CURRENT_START = new RegExp(`${key('params')}\\{\\s*${key('id')}${STRING}`, 'g');
const NAME = new RegExp(`(?:^|[,{\\s])${key('(?:operationName|name)')}${STRING}`);
const NAME_LIST = (name: string) => new RegExp(`${key(name)}\\[([^\\]]*)\\]`);
const STRINGS = new RegExp(STRING, 'g');
/** What X accepts as a switch or toggle name. */
const SWITCH_NAME = /^[A-Za-z0-9_]{1,120}$/;

const textOf = (match: RegExpMatchArray, from: number) =>
  match[from] ?? match[from + 1] ?? match[from + 2] ?? '';

/**
 * The rest of the object that `start` is inside of, up to its closing brace: `body` whole,
 * `top` with every nested object, array and call left out (so a nested `name:` is not taken for
 * the operation's). Strings are skipped whole. Null when the object does not close in time.
 */
function objectFrom(js: string, start: number): { body: string; top: string } | null {
  const end = Math.min(js.length, start + MAX_DECLARATION_CHARS);
  let depth = 0;
  let top = '';
  for (let i = start; i < end; i++) {
    const char = js[i]!;
    if (char === '"' || char === "'" || char === '`') {
      let j = i + 1;
      while (j < end && js[j] !== char) j += js[j] === '\\' ? 2 : 1;
      if (depth === 0) top += js.slice(i, j + 1);
      i = j;
      continue;
    }
    if (char === '{' || char === '[' || char === '(') {
      depth += 1;
      continue;
    }
    if (char === '}' || char === ']' || char === ')') {
      if (depth === 0) return { body: js.slice(start, i), top };
      depth -= 1;
      continue;
    }
    if (depth === 0) top += char;
  }
  return null;
}

function namesIn(body: string, list: string): string[] {
  const match = NAME_LIST(list).exec(body);
  if (!match) return [];
  const names = [...match[1]!.matchAll(STRINGS)].map((m) => textOf(m, 1));
  return [...new Set(names.filter((name) => SWITCH_NAME.test(name)))];
}

/**
 * Every GraphQL operation a script (or page) of x.com's client declares, in either build's
 * form, by operation name; the first declaration of a name wins.
 */
export function operationsInScript(js: string): Map<string, BundleOperation> {
  const found = new Map<string, BundleOperation>();
  const starts = [
    ...[...js.matchAll(LEGACY_START)].map((match) => ({ match, at: match.index })),
    // The current form's object opens at `params:{`: read from just inside it.
    ...[...js.matchAll(CURRENT_START)].map((match) => ({
      match,
      at: match.index + match[0].indexOf('{') + 1,
    })),
  ].sort((a, b) => a.at - b.at);
  for (const { match, at } of starts) {
    const queryId = textOf(match, 1);
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(queryId)) continue;
    const object = objectFrom(js, at);
    if (!object) continue;
    const name = NAME.exec(object.top);
    if (!name) continue;
    const operation = textOf(name, 1);
    if (!/^[A-Za-z0-9_]{1,120}$/.test(operation) || found.has(operation)) continue;
    found.set(operation, {
      queryId,
      featureSwitches: namesIn(object.body, 'featureSwitches'),
      fieldToggles: namesIn(object.body, 'fieldToggles'),
    });
  }
  return found;
}

/** The boolean `value` of each entry of a `{"<name>":{"value":..}}` map. */
function booleanValues(config: unknown): Record<string, boolean> {
  const values: Record<string, boolean> = {};
  if (config === null || typeof config !== 'object') return values;
  for (const [name, entry] of Object.entries(config as Record<string, unknown>)) {
    const value = (entry as { value?: unknown } | null)?.value;
    if (typeof value === 'boolean' && SWITCH_NAME.test(name)) values[name] = value;
  }
  return values;
}

/**
 * The feature switches' values in the page's initial state: the defaults, overlaid with the
 * signed-in user's. Empty when the page has none (a signed-out page may not).
 */
export function featureValuesInPage(html: string): Record<string, boolean> {
  const start = /["']?featureSwitch["']?\s*:\s*\{/.exec(html);
  if (!start) return {};
  const object = objectFrom(html, start.index + start[0].length);
  if (!object) return {};
  try {
    const state = JSON.parse(`{${object.body}}`) as {
      defaultConfig?: unknown;
      user?: { config?: unknown };
    };
    return { ...booleanValues(state.defaultConfig), ...booleanValues(state.user?.config) };
  } catch {
    // Not JSON (a script rather than data): the pairs by pattern, later ones (the user's) win.
    const values: Record<string, boolean> = {};
    for (const match of object.body.matchAll(
      /"([A-Za-z0-9_]{1,120})"\s*:\s*\{\s*"value"\s*:\s*(true|false)\b/g,
    )) {
      values[match[1]!] = match[2] === 'true';
    }
    return values;
  }
}

/** The value Perch ships for a switch: the operation's own, else any operation's. */
export function shippedFeatureValue(
  operation: XWebOperation,
  feature: string,
): boolean | undefined {
  const own = X_WEB_DEFAULT_OPERATIONS[operation].features[feature];
  if (own !== undefined) return own;
  for (const values of Object.values(X_WEB_DEFAULT_OPERATIONS)) {
    if (values.features[feature] !== undefined) return values.features[feature];
  }
  return undefined;
}

/** An operation's values from its declaration and the page's feature values. */
export function operationValues(
  operation: XWebOperation,
  declared: BundleOperation,
  pageFeatures: Record<string, boolean>,
): OperationValues {
  const shipped = X_WEB_DEFAULT_OPERATIONS[operation];
  return {
    queryId: declared.queryId,
    features: Object.fromEntries(
      declared.featureSwitches.map((name) => [
        name,
        pageFeatures[name] ?? shippedFeatureValue(operation, name) ?? false,
      ]),
    ),
    fieldToggles: Object.fromEntries(
      declared.fieldToggles.map((name) => [name, shipped.fieldToggles[name] ?? false]),
    ),
  };
}

export interface ClientOperations {
  /** The wanted operations the client declares, with their values. */
  operations: Partial<Record<XWebOperation, OperationValues>>;
  /** The wanted operations it does not declare (in the scripts read). */
  missing: XWebOperation[];
  /** Scripts read. */
  scripts: number;
  /** The page's feature values, for switches X names later (a 400 "cannot be null"). */
  pageFeatures: Record<string, boolean>;
}

/**
 * Reads x.com's page (with a session's cookies when given: signed-out visitors get another
 * build) and its scripts until every wanted operation was found. Throws when the page cannot
 * be read (HtmlRefusal for a Cloudflare or block page); scripts that fail are skipped.
 */
export async function readClientOperations(
  pageOptions: ClientPageOptions,
  cookies: Cookies | null,
  wanted: readonly XWebOperation[],
): Promise<ClientOperations> {
  const page = await loadClientPage(pageOptions, cookies);
  const pageFeatures = featureValuesInPage(page.html);
  const declared = new Map<XWebOperation, BundleOperation>();
  const take = (text: string) => {
    for (const [name, operation] of operationsInScript(text)) {
      const known = wanted.find((w) => w === name);
      if (known && !declared.has(known)) declared.set(known, operation);
    }
  };
  take(page.html);
  const { read } = await walkScripts(
    pageOptions,
    page,
    (_url, text) => take(text),
    () => declared.size === wanted.length,
  );
  const operations: Partial<Record<XWebOperation, OperationValues>> = {};
  for (const [name, operation] of declared) {
    operations[name] = operationValues(name, operation, pageFeatures);
  }
  return {
    operations,
    missing: wanted.filter((name) => !declared.has(name)),
    scripts: read,
    pageFeatures,
  };
}

/**
 * x.com's web client as the loopback fake of X's web API serves it, and the check of the
 * x-client-transaction-id header that X makes with it. Facts from twscrape 0.20 (xclid.py,
 * scripts/update-gql-ops.py), Nitter (tid.nim) and x-client-transaction-id 0.3.1:
 *
 * - The app page (GET /home) carries the verification key (`twitter-site-verification`, 48
 *   bytes), four `loading-x-anim-N` SVG frames of 16 rows each, the feature switches' values in
 *   `window.__INITIAL_STATE__`, and links the Vite build's scripts under /x-web/assets/.
 * - The main bundle declares every GraphQL operation (query id, feature switches, field
 *   toggles) in one of two forms and imports the signing chunk (sign.o-<hash>.js), whose
 *   `(n[i], 16)` calls name the key bytes the animation key is made from: the first the frame
 *   row, the others the frame time.
 * - A transaction id is base64 without padding of r followed by, each XOR r: the key bytes, the
 *   time (4 bytes little-endian, seconds since TRANSACTION_EPOCH_S), the first 16 bytes of
 *   SHA-256 of `${METHOD}!${path}!${time}obfiowerehiring${animationKey}`, and the byte 3.
 *
 * The animation key is computed here from the library's primitives, independent of any client.
 * twscrape clamps the animated colour to 0..255 and the library only below: a key whose colour
 * would leave that range is drawn again, so both kinds of client agree with the fake.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { X_WEB_OPERATIONS, type XWebOperation } from '@perch/shared';
import {
  Cubic,
  convertRotationToMatrix,
  floatToHex,
  interpolate,
  isOdd,
} from 'x-client-transaction-id';
import { X_WEB_DEFAULT_OPERATIONS } from '../../src/sources/x-web/x-web-operation-defaults.js';

/** The transaction id's clock starts here (epoch seconds, 2023-05-01T07:00:00Z). */
export const TRANSACTION_EPOCH_S = 1_682_924_400;
const TRANSACTION_KEYWORD = 'obfiowerehiring';
const TRANSACTION_LAST_BYTE = 3;
/** How far the id's time may be from the fake's clock. */
const TRANSACTION_SKEW_S = 10 * 60;
const KEY_BYTES = 48;
const HASH_BYTES = 16;
const FRAME_COUNT = 4;
const FRAME_ROWS = 16;
/** 3 + 3 colour values, a rotation and 4 curve points. */
const ROW_VALUES = 11;
const ANIMATION_TOTAL_TIME = 4096;
const QUERY_ID_CHARS = 22;
const ASSET_HASH_CHARS = 8;
/** Operations in the bundle that Perch does not call: a resolver must pick by exact name. */
const DECOY_OPERATIONS = [
  'UserByRestId',
  'TweetResultByRestId',
  'UserMedia',
  'Likes',
  'SearchTimeline',
];
/** Operations declared in the older `e.exports={queryId…}` form; the others use `params:{id…}`. */
const OLDER_FORM: ReadonlySet<string> = new Set([
  'UserTweetsAndReplies',
  'UsersByRestIds',
  'Likes',
]);

export interface FakeXWebOperationEntry {
  queryId: string;
  /** Names of the feature switches the operation requires (each must be sent, not null). */
  featureSwitches: string[];
  fieldToggles: string[];
}

/** What the fake's current web client holds (for tests that need to see inside). */
export interface FakeXWebClientFacts {
  verificationKey: string;
  animationKey: string;
  rowIndex: number;
  keyByteIndices: number[];
  mainScript: string;
  vendorScript: string;
  signScript: string;
}

interface Keys {
  keyBytes: Buffer;
  frames: string[];
  animationKey: string;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomText(length: number, alphabet = ALPHANUMERIC): string {
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
}

/** A query id as X's look: 22 characters of base64url. */
export function randomQueryId(): string {
  return randomText(QUERY_ID_CHARS, `${ALPHANUMERIC}_-`);
}

const assetHash = () => randomText(ASSET_HASH_CHARS);

/** A value 0-255 scaled into [min, max]: floored, or rounded to 2 places. */
function solve(value: number, min: number, max: number, rounding: boolean): number {
  const result = (value * (max - min)) / 255 + min;
  return rounding ? Math.floor(result) : Math.round(result * 100) / 100;
}

/**
 * The animation key of one frame row at a time (twscrape's cacl_anim_key), and whether the
 * colour left 0..255 above (where the references disagree).
 */
function animate(row: number[], targetTime: number): { key: string; overflow: boolean } {
  const fromColor = [...row.slice(0, 3), 1];
  const toColor = [...row.slice(3, 6), 1];
  const toRotation = [solve(row[6]!, 60, 360, true)];
  const curves = row.slice(7).map((value, i) => solve(value, isOdd(i), 1, false));
  const progress = new Cubic(curves).getValue(targetTime);
  const rawColor = interpolate(fromColor, toColor, progress);
  const overflow = rawColor.slice(0, 3).some((value) => value > 255);
  const color = rawColor.map((value) => Math.max(0, Math.min(255, value)));
  const rotation = interpolate([0], toRotation, progress);
  const parts = color.slice(0, 3).map((value) => Math.round(value).toString(16));
  for (const value of convertRotationToMatrix(rotation[0]!)) {
    const rounded = Math.abs(Math.round(value * 100) / 100);
    const hex = floatToHex(rounded);
    parts.push(hex.startsWith('.') ? `0${hex}`.toLowerCase() : hex || '0');
  }
  parts.push('0', '0');
  return { key: parts.join('').replace(/[.-]/g, ''), overflow };
}

/** The rows of numbers of a frame's path: after its first 9 characters, split by `C`. */
function frameRows(d: string): number[][] {
  return d
    .slice(9)
    .split('C')
    .map((segment) =>
      segment
        .replace(/[^\d]+/g, ' ')
        .trim()
        .split(' ')
        .filter(Boolean)
        .map(Number),
    );
}

/** The animation key a client derives from the page and the signing chunk (load_keys). */
export function animationKeyOf(
  keyBytes: Uint8Array,
  frames: string[],
  rowIndex: number,
  keyByteIndices: number[],
): { key: string; overflow: boolean } {
  const rows = frameRows(frames[keyBytes[5]! % frames.length]!);
  const row = rows[keyBytes[rowIndex]! % FRAME_ROWS]!;
  const frameTime = keyByteIndices.reduce((time, index) => time * (keyBytes[index]! % 16), 1);
  return animate(row, (Math.round(frameTime / 10) * 10) / ANIMATION_TOTAL_TIME);
}

function randomFrame(): string {
  const rows = Array.from({ length: FRAME_ROWS }, () =>
    Array.from({ length: ROW_VALUES }, () => randomInt(256)),
  );
  return `M 10,30 C${rows.map((row) => ` ${row.join(' ')} `).join('C')}`;
}

function newKeys(rowIndex: number, keyByteIndices: number[]): Keys {
  for (;;) {
    const keyBytes = randomBytes(KEY_BYTES);
    const frames = Array.from({ length: FRAME_COUNT }, randomFrame);
    const { key, overflow } = animationKeyOf(keyBytes, frames, rowIndex, keyByteIndices);
    if (!overflow) return { keyBytes, frames, animationKey: key };
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether `id` is a transaction id of this key for the request, made within the allowed skew
 * of `nowMs`.
 */
export function transactionIdValid(
  id: string | undefined,
  method: string,
  path: string,
  nowMs: number,
  keyBytes: Uint8Array,
  animationKey: string,
): boolean {
  if (!id || !/^[A-Za-z0-9+/]+={0,2}$/.test(id)) return false;
  const bare = id.replace(/=+$/, '');
  const raw = Buffer.from(bare.padEnd(Math.ceil(bare.length / 4) * 4, '='), 'base64');
  if (raw.length !== 1 + keyBytes.length + 4 + HASH_BYTES + 1) return false;
  const bytes = raw.subarray(1).map((byte) => byte ^ raw[0]!);
  if (!Buffer.from(keyBytes).equals(bytes.subarray(0, keyBytes.length))) return false;
  const time = Buffer.from(bytes).readUInt32LE(keyBytes.length);
  if (Math.abs(time - (nowMs / 1000 - TRANSACTION_EPOCH_S)) > TRANSACTION_SKEW_S) return false;
  const hashAt = keyBytes.length + 4;
  const hash = sha256(
    `${method.toUpperCase()}!${path}!${time}${TRANSACTION_KEYWORD}${animationKey}`,
  );
  return (
    hash.subarray(0, HASH_BYTES).equals(bytes.subarray(hashAt, hashAt + HASH_BYTES)) &&
    bytes[hashAt + HASH_BYTES] === TRANSACTION_LAST_BYTE
  );
}

function signScript(rowIndex: number, keyByteIndices: number[]): string {
  const reads = keyByteIndices.map((i) => `t*=parseInt(n[${i}], 16)%16`).join(';');
  return [
    'const r=e=>new TextEncoder().encode(e);',
    `export function s(n){let o=parseInt(n[${rowIndex}], 16)%16,t=1;${reads};`,
    'return{row:o,time:Math.round(t/10)*10}}',
    'export function h(e){return crypto.subtle.digest("SHA-256",r(e))}',
  ].join('\n');
}

const quoted = (names: string[]) => `[${names.map((name) => `"${name}"`).join(',')}]`;

function declaration(name: string, entry: FakeXWebOperationEntry, n: number): string {
  const metadata = `metadata:{featureSwitches:${quoted(entry.featureSwitches)},fieldToggles:${quoted(entry.fieldToggles)}}`;
  if (OLDER_FORM.has(name)) {
    return `var m${n}={exports:{}};(function(e){e.exports={queryId:"${entry.queryId}",operationName:"${name}",operationType:"query",${metadata}}})(m${n});`;
  }
  return `const q${n}={params:{id:"${entry.queryId}",${metadata},name:"${name}",operationKind:"query",text:void 0}};`;
}

function mainScript(
  operations: Map<XWebOperation, FakeXWebOperationEntry>,
  vendor: string,
  sign: string,
): string {
  const declared: [string, FakeXWebOperationEntry][] = [...operations];
  const decoySwitches = [...(operations.get('UserTweets')?.featureSwitches ?? [])].slice(0, 6);
  DECOY_OPERATIONS.forEach((name, i) => {
    const at = Math.min(declared.length, 1 + i * 2);
    declared.splice(at, 0, [
      name,
      { queryId: randomQueryId(), featureSwitches: decoySwitches, fieldToggles: [] },
    ]);
  });
  return [
    `import{a as e,b as t}from"./${vendor}";`,
    ...declared.map(([name, entry], n) => declaration(name, entry, n)),
    `const l=()=>import("./${sign}").then(n=>n.s);`,
    'export{e as render,t as hydrate,l as signer};',
  ].join('\n');
}

const VENDOR_SCRIPT = [
  'const a=(e,t)=>Object.assign({},e,t);',
  'function b(e){return typeof e=="string"?e.trim():String(e)}',
  'export{a,b};',
].join('\n');

const escapeAttribute = (text: string) => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;');

export interface FakeWebClient {
  facts(): FakeXWebClientFacts;
  /** The app page, linking scripts on `baseUrl`. */
  page(baseUrl: string): string;
  /** A script under /x-web/assets/ by file name (old builds stay served), or null. */
  asset(fileName: string): string | null;
  transactionIdValid(id: string | undefined, method: string, path: string, nowMs: number): boolean;
  operation(name: string): FakeXWebOperationEntry | undefined;
  operations(): Record<XWebOperation, FakeXWebOperationEntry>;
  switchValues(): Record<string, boolean>;
  rotateVerificationKey(): void;
  rotateQueryIds(): void;
  requireFeature(name: string, value: boolean): void;
}

export function createFakeWebClient(options: { freshQueryIds?: boolean } = {}): FakeWebClient {
  const operations = new Map<XWebOperation, FakeXWebOperationEntry>();
  const switches: Record<string, boolean> = {};
  for (const name of X_WEB_OPERATIONS) {
    const defaults = X_WEB_DEFAULT_OPERATIONS[name];
    operations.set(name, {
      queryId: options.freshQueryIds ? randomQueryId() : defaults.queryId,
      featureSwitches: Object.keys(defaults.features),
      fieldToggles: Object.keys(defaults.fieldToggles),
    });
    Object.assign(switches, defaults.features);
  }
  const rowIndex = randomInt(KEY_BYTES);
  const keyByteIndices = Array.from({ length: 3 + randomInt(2) }, () => randomInt(KEY_BYTES));
  let keys = newKeys(rowIndex, keyByteIndices);
  const assets = new Map<string, string>();
  const vendor = `vendor-${assetHash()}.js`;
  const sign = `sign.o-${assetHash()}.js`;
  assets.set(vendor, VENDOR_SCRIPT);
  assets.set(sign, signScript(rowIndex, keyByteIndices));
  let main = '';

  /** A new main bundle (a new name): what a deploy of x.com's client looks like. */
  function publishMain() {
    main = `main-${assetHash()}.js`;
    assets.set(main, mainScript(operations, vendor, sign));
  }
  publishMain();

  function page(baseUrl: string): string {
    const assetsUrl = `${baseUrl}/x-web/assets`;
    const defaultConfig = Object.fromEntries(
      Object.entries(switches).map(([name, value]) => [name, { value }]),
    );
    const state = JSON.stringify({ featureSwitch: { defaultConfig } });
    const frames = keys.frames
      .map(
        (d, n) =>
          `<svg id="loading-x-anim-${n}" width="0" height="0" aria-hidden="true"><g><path d="M0 0"/><path d="${d}"/></g></svg>`,
      )
      .join('');
    return [
      '<!DOCTYPE html>',
      '<html dir="ltr" lang="en"><head><meta charset="utf-8">',
      `<meta name="twitter-site-verification" content="${escapeAttribute(keys.keyBytes.toString('base64'))}">`,
      `<link rel="modulepreload" href="${assetsUrl}/${vendor}">`,
      `<script type="module" src="${assetsUrl}/${main}"></script>`,
      '<title>X</title></head><body>',
      `<div id="react-root"></div><div style="display:none">${frames}</div>`,
      `<script>window.__INITIAL_STATE__=${state}</script>`,
      '</body></html>',
    ].join('\n');
  }

  function snapshot(): Record<XWebOperation, FakeXWebOperationEntry> {
    const table = {} as Record<XWebOperation, FakeXWebOperationEntry>;
    for (const [name, entry] of operations) {
      table[name] = {
        queryId: entry.queryId,
        featureSwitches: [...entry.featureSwitches],
        fieldToggles: [...entry.fieldToggles],
      };
    }
    return table;
  }

  return {
    facts: () => ({
      verificationKey: keys.keyBytes.toString('base64'),
      animationKey: keys.animationKey,
      rowIndex,
      keyByteIndices: [...keyByteIndices],
      mainScript: main,
      vendorScript: vendor,
      signScript: sign,
    }),
    page,
    asset: (fileName) => assets.get(fileName) ?? null,
    transactionIdValid: (id, method, path, nowMs) =>
      transactionIdValid(id, method, path, nowMs, keys.keyBytes, keys.animationKey),
    operation: (name) => operations.get(name as XWebOperation),
    operations: snapshot,
    switchValues: () => ({ ...switches }),
    rotateVerificationKey() {
      keys = newKeys(rowIndex, keyByteIndices);
    },
    rotateQueryIds() {
      for (const entry of operations.values()) entry.queryId = randomQueryId();
      publishMain();
    },
    requireFeature(name, value) {
      switches[name] = value;
      for (const entry of operations.values()) {
        if (!entry.featureSwitches.includes(name)) entry.featureSwitches.push(name);
      }
      publishMain();
    },
  };
}

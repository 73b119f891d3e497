/**
 * What an answer of X's web GraphQL API means for the request, the account and the pool: one
 * pure function, so every rule is in one table (x-web-answer.test.ts). The rules follow what
 * twscrape 0.20 and Nitter (August 2026) do with the same answers:
 *
 * | X answers                                   | meaning                                        |
 * |---------------------------------------------|------------------------------------------------|
 * | an HTML page (Cloudflare, 403/503 text/html) | the server is refused: the pool pauses         |
 * | 404 with an empty body                      | the transaction id is stale: make a new one    |
 * | 404 with a body                             | the query id is unknown: read x.com's client   |
 * | 400 'unknown or unspecified query' (or like) | the query id is unknown: read x.com's client   |
 * | 336 / 'features cannot be null: a, b'       | features missing: add them, read the client    |
 * | 326 locked, 64 suspended                    | the account is out, with X's reason            |
 * | 32, 89, 353, 401, 403 without errors        | the session ended (new cookies or sign-in)     |
 * | 429, or 88 with nothing left in the window  | the operation rests until X's reset            |
 * | 88 while the window has requests left       | X limits the account: the operation rests 24 h |
 * | 5xx, 131 (internal error), -1 LoadShed      | X is overloaded: retried, then 'unavailable'   |
 * | 200 with errors and no data, other 4xx, 366 | refused, in X's words (never 'not found')      |
 */
import { htmlRefusalOf } from './x-web-client-page.js';

export interface WireError {
  code?: number;
  message?: string;
  extensions?: { code?: number };
}

export type Answer =
  | { kind: 'ok' }
  | { kind: 'html'; reason: string }
  | { kind: 'stale_transaction' }
  | { kind: 'unknown_operation' }
  | { kind: 'missing_features'; features: string[]; reason: string }
  | { kind: 'account_out'; status: 'LOCKED' | 'SUSPENDED' | 'EXPIRED'; reason: string }
  | { kind: 'rate_limited'; reason: string }
  | { kind: 'account_limited'; reason: string }
  | { kind: 'transient'; reason: string }
  | { kind: 'refused'; reason: string };

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or null when it is not JSON. */
  body: { data?: unknown; errors?: WireError[] } | null;
}

const LOCKED = 326;
const SUSPENDED = 64;
/** Could not authenticate (32), invalid or expired token (89), ct0 not matching (353). */
const ENDED = new Set([32, 89, 353]);
const RATE_LIMIT = 88;
const FEATURES = 336;
/** Internal error (131) and X shedding load (-1 LoadShed): worth another try. */
const OVERLOADED = new Set([131, -1]);
const MISSING_FEATURES = /features cannot be null:\s*([^"]+)/i;
/** X's 400 for a query id (operation) it does not know: 'Unknown or unspecified query'. */
const UNKNOWN_OPERATION =
  /\b(unknown|unspecified|unrecognized|invalid)\b[^.;]*\b(query|operation)\b|\b(query|operation)\b[^.;]*\bnot found\b/i;

export function codeOf(error: WireError): number | undefined {
  return error.code ?? error.extensions?.code;
}

/** X's errors as one line: '(88) Rate limit exceeded; (131) Internal error', without repeats. */
export function errorWords(errors: WireError[]): string {
  const lines = errors.map((e) => `(${codeOf(e) ?? '?'}) ${e.message ?? ''}`.trim());
  return [...new Set(lines)].join('; ');
}

/** At least one field of `data` is not null (twscrape's has_data). */
export function hasData(body: RawAnswer['body']): boolean {
  const data = body?.data;
  return (
    data !== null &&
    typeof data === 'object' &&
    Object.values(data as Record<string, unknown>).some((v) => v !== null && v !== undefined)
  );
}

/** The features X names as missing ('The following features cannot be null: a, b'). */
export function missingFeatures(errors: WireError[]): string[] {
  for (const error of errors) {
    const match = MISSING_FEATURES.exec(error.message ?? '');
    if (match) {
      return match[1]!
        .split(',')
        .map((name) => name.trim())
        .filter((name) => /^[A-Za-z0-9_]+$/.test(name));
    }
  }
  return [];
}

export function parseBody(text: string): RawAnswer['body'] {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as RawAnswer['body']) : null;
  } catch {
    return null;
  }
}

/** What `answer` means; `remaining` is X's x-rate-limit-remaining (null when not sent). */
export function classifyAnswer(answer: RawAnswer, remaining: number | null): Answer {
  const { status, headers, text, body } = answer;
  const refusal = htmlRefusalOf(status, headers, text);
  if (refusal) return { kind: 'html', reason: refusal.message };
  if (status === 404) {
    return text.trim() === '' ? { kind: 'stale_transaction' } : { kind: 'unknown_operation' };
  }
  const errors = body?.errors ?? [];
  const codes = new Set(errors.map(codeOf));
  const words = errorWords(errors);
  const features = missingFeatures(errors);
  if (codes.has(FEATURES) || features.length > 0) {
    return { kind: 'missing_features', features, reason: words };
  }
  if (status === 400 && UNKNOWN_OPERATION.test(errors.length > 0 ? words : text)) {
    return { kind: 'unknown_operation' };
  }
  if (codes.has(LOCKED)) return { kind: 'account_out', status: 'LOCKED', reason: words };
  if (codes.has(SUSPENDED)) return { kind: 'account_out', status: 'SUSPENDED', reason: words };
  if ([...ENDED].some((code) => codes.has(code)) || status === 401) {
    return { kind: 'account_out', status: 'EXPIRED', reason: words || `HTTP ${status}` };
  }
  if (status === 403 && errors.length === 0) {
    return { kind: 'account_out', status: 'EXPIRED', reason: 'HTTP 403' };
  }
  if (codes.has(RATE_LIMIT) && remaining !== null && remaining > 0) {
    return { kind: 'account_limited', reason: words };
  }
  if (status === 429 || codes.has(RATE_LIMIT)) {
    return { kind: 'rate_limited', reason: words || `HTTP ${status}` };
  }
  if (status >= 500 || [...OVERLOADED].some((code) => codes.has(code))) {
    return { kind: 'transient', reason: words || `HTTP ${status}` };
  }
  if (status !== 200) return { kind: 'refused', reason: words || `HTTP ${status}` };
  if (errors.length > 0 && !hasData(body)) return { kind: 'refused', reason: words };
  if (body === null) return { kind: 'transient', reason: 'an answer that is not JSON' };
  return { kind: 'ok' };
}

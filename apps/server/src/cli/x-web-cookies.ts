/**
 * The cookies of `x-web add-cookies` (auth_token, ct0) sign in to an X account: like a password
 * they come from the environment or standard input, never from the command line, where `ps`
 * shows them to every local user and the shell keeps them in its history.
 */
import { UsageError } from './cli-errors.js';

export interface XWebCookies {
  auth_token: string;
  ct0: string;
}

type CookieName = keyof XWebCookies;
const COOKIE_NAMES: readonly CookieName[] = ['auth_token', 'ct0'];

/** The options and words that would put a cookie on the command line. */
const COOKIE_ARGUMENT = /^(--auth[-_]token|--ct0)(=|$)|^(auth_token|ct0)=/i;

export const COOKIES_NOT_IN_ARGUMENTS =
  'cookies are not taken as arguments: `ps` and the shell history would show them. Set ' +
  'X_WEB_AUTH_TOKEN and X_WEB_CT0, or give them on standard input as the browser sends them ' +
  "('auth_token=...; ct0=...', pasted then Ctrl-D, or `< cookies.txt`).";

/** Throws a UsageError, naming no value, when an argument carries a cookie. */
export function refuseCookieArguments(args: readonly string[]): void {
  if (args.some((arg) => COOKIE_ARGUMENT.test(arg))) throw new UsageError(COOKIES_NOT_IN_ARGUMENTS);
}

/**
 * The auth_token and ct0 in a text such as a Cookie header (`auth_token=...; ct0=...`), one
 * `name=value` a line, or both; other cookies and a leading `Cookie:` are ignored.
 */
export function parseCookies(text: string): Partial<XWebCookies> {
  const found: Partial<XWebCookies> = {};
  for (const part of text.replace(/^\s*cookie:/i, '').split(/[;\r\n]+/)) {
    const equals = part.indexOf('=');
    if (equals < 0) continue;
    const name = part.slice(0, equals).trim().toLowerCase() as CookieName;
    const value = part
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (COOKIE_NAMES.includes(name) && value) found[name] = value;
  }
  return found;
}

export interface CookieSources {
  env: Record<string, string | undefined>;
  /** Standard input (read only when the environment lacks a cookie). */
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Says what to paste when standard input is a terminal. */
  prompt: (text: string) => void;
}

/**
 * The cookies from X_WEB_AUTH_TOKEN and X_WEB_CT0; what they lack is read from standard input,
 * until both are there or the input ends. Missing ones come back empty (the account's own checks
 * then say what is wrong).
 */
export async function readXWebCookies({ env, input, prompt }: CookieSources): Promise<XWebCookies> {
  const cookies: Partial<XWebCookies> = {
    ...(env.X_WEB_AUTH_TOKEN ? { auth_token: env.X_WEB_AUTH_TOKEN.trim() } : {}),
    ...(env.X_WEB_CT0 ? { ct0: env.X_WEB_CT0.trim() } : {}),
  };
  const complete = () => COOKIE_NAMES.every((name) => cookies[name]);
  if (!complete()) {
    if (input.isTTY) {
      prompt("Paste the account's cookies (auth_token=...; ct0=...), then press Ctrl-D:");
    }
    const take = (text: string) => {
      const read = parseCookies(text);
      for (const name of COOKIE_NAMES) cookies[name] ??= read[name];
    };
    let text = '';
    for await (const chunk of input) {
      text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
      // Only what a separator ended: the last value may go on in the next chunk.
      take(text.slice(0, Math.max(text.lastIndexOf(';'), text.lastIndexOf('\n')) + 1));
      if (complete()) break;
    }
    take(text);
  }
  return { auth_token: cookies.auth_token ?? '', ct0: cookies.ct0 ?? '' };
}

/**
 * x.com's web client as a browser loads it: the app page (x.com/home) and the scripts it links.
 * Two readers need it: the transaction ids (the page's verification key and animation, the
 * signing script's indices) and the operations resolver (query ids and feature switches in the
 * bundle). Facts from twscrape 0.20 (xclid.py, scripts/update-gql-ops.py) and RSSHub:
 *
 * - The current build (Vite) links its scripts directly: `<script src>` and
 *   `<link rel="modulepreload" href>` under /x-web/; more chunks are imported from those.
 * - The legacy build (webpack) embeds a chunk map (`id:"name"` and `id:"7hexchars"`) and its
 *   scripts are /responsive-web/client-web/{name}.{hash}a.js, main.{hash}.js among them.
 * - X serves a different build to signed-out visitors, so the page is read with a session's
 *   cookies when one is at hand.
 */
import { cookieHeader, X_WEB_USER_AGENT, type Cookies } from './x-web-http.js';

/** Where the legacy build's chunks live (the map in the page names only name and hash). */
const LEGACY_ASSET_BASE = 'https://abs.twimg.com/responsive-web/client-web/';
/** Scripts read at most when following imports from the page's own (a bound on one look). */
const MAX_SCRIPTS = 80;

/** X answered with an HTML page where JSON or the app was expected (Cloudflare, a block page). */
export class HtmlRefusal extends Error {
  constructor(
    readonly status: number,
    readonly title: string | null,
    readonly cloudflare: boolean,
  ) {
    super(
      `${cloudflare ? 'Cloudflare' : 'An HTML page'} (HTTP ${status}${title ? `: ${title}` : ''})`,
    );
    this.name = 'HtmlRefusal';
  }
}

/** The <title> of an HTML page, trimmed, or null. */
export function htmlTitle(body: string): string | null {
  const match = /<title[^>]*>([^<]{0,200})<\/title>/i.exec(body);
  const title = match?.[1]?.replace(/\s+/g, ' ').trim();
  return title ? title : null;
}

/**
 * An HTML answer that is a refusal rather than data: an error status with an HTML body, or a
 * Cloudflare challenge page whatever its status. Null when the answer is not one.
 */
export function htmlRefusalOf(status: number, headers: Headers, body: string): HtmlRefusal | null {
  const type = headers.get('content-type') ?? '';
  const html = type.includes('text/html') || /^\s*<(!doctype html|html)/i.test(body);
  if (!html) return null;
  const title = htmlTitle(body);
  const cloudflare =
    headers.has('cf-ray') ||
    /just a moment|attention required|cloudflare/i.test(`${title ?? ''} ${body.slice(0, 4000)}`);
  if (status < 400 && !cloudflare) return null;
  return new HtmlRefusal(status, title, cloudflare);
}

export interface ClientPageOptions {
  /** X_WEB_BASE_URL (https://x.com). */
  baseUrl: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ClientPage {
  /** The page's address after redirects. */
  url: string;
  html: string;
  /** The scripts the page links or maps, absolute, in page order. */
  scripts: string[];
}

function browserHeaders(cookies: Cookies | null): Headers {
  const headers = new Headers({
    accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'accept-language': 'en-US,en;q=0.9',
    'user-agent': X_WEB_USER_AGENT,
  });
  if (cookies && Object.keys(cookies).length > 0) headers.set('cookie', cookieHeader(cookies));
  return headers;
}

async function getText(
  url: string,
  options: ClientPageOptions,
  cookies: Cookies | null,
): Promise<{ url: string; text: string }> {
  const doFetch = options.fetch ?? fetch;
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  const response = await doFetch(url, {
    headers: browserHeaders(cookies),
    signal: options.signal ? AbortSignal.any([options.signal, deadline]) : deadline,
  });
  const text = await response.text();
  const refusal = htmlRefusalOf(response.status, response.headers, text);
  if (refusal && !url.endsWith('.js')) throw refusal;
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  return { url: response.url || url, text };
}

/** The scripts a page links (Vite) or maps (webpack), absolute, without repeats. */
export function scriptUrls(html: string, pageUrl: string): string[] {
  const found: string[] = [];
  const add = (ref: string) => {
    try {
      found.push(new URL(ref.replaceAll('&amp;', '&'), pageUrl).href);
    } catch {
      // Not a URL: ignored.
    }
  };
  for (const match of html.matchAll(/<script\b[^>]*\bsrc=["']([^"']+\.js[^"']*)["']/gi)) {
    add(match[1]!);
  }
  for (const match of html.matchAll(/<link\b[^>]*\bhref=["']([^"']+\.js[^"']*)["'][^>]*>/gi)) {
    if (/rel=["'](modulepreload|preload)["']/i.test(match[0])) add(match[1]!);
  }
  // The legacy build: a hash map {id:"7hex"} and a name map {id:"name"} in the runtime.
  const hashes = new Map<string, string>();
  for (const match of html.matchAll(/(\d+):"([0-9a-f]{7})"/g)) hashes.set(match[1]!, match[2]!);
  const names = new Map<string, string>();
  for (const match of html.matchAll(/(\d+):"([^"]+)"/g)) {
    if (!/^[0-9a-f]{7}$/.test(match[2]!)) names.set(match[1]!, match[2]!);
  }
  for (const [id, hash] of hashes) add(`${LEGACY_ASSET_BASE}${names.get(id) ?? id}.${hash}a.js`);
  const main = /\/client-web\/main\.([0-9a-z]+)\.js/.exec(html);
  if (main) add(`${LEGACY_ASSET_BASE}main.${main[1]}.js`);
  return [...new Set(found)];
}

/** The scripts a script imports by relative path (`import("./x.js")`, `from "./x.js"`). */
export function importedScripts(js: string, scriptUrl: string): string[] {
  const found = new Set<string>();
  for (const match of js.matchAll(
    /(?:from|import)\s*\(?\s*[`"']((?:\.{1,2}\/)[^`"']+?\.js)[`"']/g,
  )) {
    try {
      found.add(new URL(match[1]!, scriptUrl).href);
    } catch {
      // ignored
    }
  }
  return [...found];
}

/** Loads x.com/home with the session's cookies (when given) and lists its scripts. */
export async function loadClientPage(
  options: ClientPageOptions,
  cookies: Cookies | null,
): Promise<ClientPage> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const page = await getText(`${base}/home`, options, cookies);
  return { url: page.url, html: page.text, scripts: scriptUrls(page.text, page.url) };
}

/** One script of the client, as text. */
export async function loadScript(options: ClientPageOptions, url: string): Promise<string> {
  return (await getText(url, options, null)).text;
}

/**
 * Reads the page's scripts, then the scripts they import, breadth first, until `enough` says
 * so or MAX_SCRIPTS were read; `visit` sees each one. Scripts that fail to load are skipped.
 */
export async function walkScripts(
  options: ClientPageOptions,
  page: ClientPage,
  visit: (url: string, text: string) => void,
  enough: () => boolean,
  skip: (url: string) => boolean = (url) => /\/(i18n|icons)\//.test(url),
): Promise<{ read: number; failed: number }> {
  const seen = new Set<string>(page.scripts);
  let queue = page.scripts.filter((url) => !skip(url));
  let read = 0;
  let failed = 0;
  while (queue.length > 0 && read + failed < MAX_SCRIPTS && !enough()) {
    const batch = queue.slice(0, 8);
    queue = queue.slice(8);
    const texts = await Promise.all(
      batch.map((url) =>
        loadScript(options, url).then(
          (text) => ({ url, text }),
          () => ({ url, text: null }),
        ),
      ),
    );
    for (const { url, text } of texts) {
      if (text === null) {
        failed += 1;
        continue;
      }
      read += 1;
      visit(url, text);
      for (const next of importedScripts(text, url)) {
        if (!seen.has(next) && !skip(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
  }
  return { read, failed };
}

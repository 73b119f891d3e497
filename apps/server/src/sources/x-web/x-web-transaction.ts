/**
 * The `x-client-transaction-id` header that x.com's own client puts on every GraphQL and
 * sign-in request; X answers 404 with an empty body to a request without a valid one.
 *
 * An id is made from the app page's verification key (`twitter-site-verification`), its
 * loading animation (`loading-x-anim-*` frames) and the indices in the client's signing script
 * (`sign.o-*.js` in the current build, `ondemand.s.*.js` in the legacy one), with the method,
 * path and time. The npm package x-client-transaction-id does the arithmetic; this module finds
 * the page and the signing script (the package only knows the legacy script's address and
 * fetches it itself) and caches one generator per process, renewed when X answers 404 with an
 * empty body or after an hour. Everything else sees only `TransactionIds`, so a broken release
 * of the package can be swapped here alone.
 */
import type { ClientTransaction } from 'x-client-transaction-id';
import type { Cookies } from './x-web-http.js';
import {
  loadClientPage,
  loadScript,
  walkScripts,
  type ClientPage,
  type ClientPageOptions,
} from './x-web-client-page.js';

// The package decodes base64 with ArrayBuffer.prototype.transfer (ES2024), which Node 20 lacks:
// the standard method, for a copy of the first `length` bytes (nothing here needs detaching).
if (!('transfer' in ArrayBuffer.prototype)) {
  Object.defineProperty(ArrayBuffer.prototype, 'transfer', {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length: number = this.byteLength) {
      const copy = new ArrayBuffer(length);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
      return copy;
    },
  });
}

/** The ids of one process: made on demand, renewed when X refuses them. */
export interface TransactionIds {
  /** The header value for a request of `method` to `path` (the URL's path, no query). */
  idFor(method: string, path: string): Promise<string>;
  /** Forgets the generator: the next id reads x.com's page again (X answered 404, empty). */
  renew(): void;
}

export interface TransactionIdsOptions {
  page: ClientPageOptions;
  /** A signed-in session's cookies (X serves signed-out visitors another build), or null. */
  cookies: () => Promise<Cookies | null>;
  /** How long a generator is used before the page is read again (default 1 hour). */
  ttlMs?: number;
  now?: () => number;
}

/** The signing script's file name, in either build (`design.o-*.js` is not it). */
const SIGNING_FILE = /(?:\.{0,2}\/)?[\w./-]*?\b(?:ondemand\.s|sign\.o)[\w.-]*\.js/;
/** The legacy build's runtime maps the chunk `ondemand.s` to its hash. */
const LEGACY_SIGNING = /["']ondemand\.s["']\s*:\s*["']([0-9a-f]+)["']/;
/** The indices in the signing script: `(x[N], 16)`, the row index first, then the key bytes. */
const INDICES = /\(\w\[(\d{1,2})\],\s*16\)/g;

/** Where the signing script is: linked, mapped (legacy) or imported by one of the scripts. */
async function signingScriptUrl(options: ClientPageOptions, page: ClientPage): Promise<string> {
  const linked = page.scripts.find((url) => SIGNING_FILE.test(new URL(url).pathname));
  if (linked) return linked;
  const legacy = LEGACY_SIGNING.exec(page.html);
  if (legacy) {
    return `https://abs.twimg.com/responsive-web/client-web/ondemand.s.${legacy[1]}a.js`;
  }
  let found: string | null = null;
  await walkScripts(
    options,
    page,
    (url, text) => {
      const match = SIGNING_FILE.exec(text);
      if (match && !found) found = new URL(match[0], url).href;
    },
    () => found !== null,
  );
  if (!found) throw new Error("x.com's signing script was not found in its client");
  return found;
}

export function parseIndices(script: string): [number, number[]] {
  const indices = [...script.matchAll(INDICES)].map((match) => Number(match[1]));
  if (indices.length < 2) throw new Error("No indices in x.com's signing script");
  return [indices[0]!, indices.slice(1)];
}

/** A generator from x.com's page and signing script, with the package's arithmetic. */
async function createGenerator(
  options: TransactionIdsOptions,
): Promise<(method: string, path: string) => Promise<string>> {
  const page = await loadClientPage(options.page, await options.cookies());
  const indices = parseIndices(
    await loadScript(options.page, await signingScriptUrl(options.page, page)),
  );
  // The HTML parser and the package are loaded by the first x-web account that signs a request,
  // not at every start-up.
  const [{ parseHTML }, { ClientTransaction: Transaction }] = await Promise.all([
    import('linkedom'),
    import('x-client-transaction-id'),
  ]);
  const { document } = parseHTML(page.html);
  const transaction = new Transaction(
    document as unknown as ConstructorParameters<typeof ClientTransaction>[0],
  );
  // The package would fetch the legacy signing script from abs.twimg.com itself: it gets the
  // indices read above instead.
  (transaction as unknown as { getIndices: () => Promise<[number, number[]]> }).getIndices = () =>
    Promise.resolve(indices);
  await transaction.initialize();
  return (method, path) => transaction.generateTransactionId(method.toUpperCase(), path);
}

export function createTransactionIds(options: TransactionIdsOptions): TransactionIds {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 60 * 60_000;
  let current: {
    made: number;
    generate: Promise<(m: string, p: string) => Promise<string>>;
  } | null = null;

  return {
    async idFor(method, path) {
      if (!current || now() - current.made >= ttlMs) {
        const made = { made: now(), generate: createGenerator(options) };
        current = made;
        // A failed read is not cached: the next request tries again.
        made.generate.catch(() => {
          if (current === made) current = null;
        });
      }
      const generate = await current.generate;
      return generate(method, path);
    },
    renew() {
      current = null;
    },
  };
}

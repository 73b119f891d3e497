/**
 * Who may tell Perch the client's address and protocol (X-Forwarded-For, -Proto, -Host): the
 * TRUST_PROXY setting, read here and handed to Fastify, so that `request.ip`,
 * `request.protocol` and `request.host` are the only places the answer is read from.
 *
 * X-Forwarded-For is read from the right: each trusted proxy appends the peer it was reached
 * from, so the first entry not added by a trusted proxy is the client. Anything to its left was
 * written by the client and is never believed. The leftmost entry (what `trustProxy: true`
 * gives in Fastify) is exactly the one a client controls, so `true` is not passed on as is.
 */
import net from 'node:net';
import type { FastifyServerOptions } from 'fastify';

/**
 * `false`: no proxy, the TCP peer is the client (the default).
 * A number: that many proxies in front, whatever their addresses; Perch must then be reachable
 * only through them, since any peer counts as the nearest proxy.
 * A list of addresses and CIDR ranges (or proxy-addr's names `loopback`, `linklocal`,
 * `uniquelocal`): only peers in it are proxies, so a direct client cannot pretend.
 */
export type TrustProxy = false | number | readonly string[];

/** More hops than any real chain of proxies: a value past it is a typo. */
export const MAX_PROXY_HOPS = 16;

const NO = new Set(['', 'false', 'no', '0']);
/** `true` stays accepted from before hop counts: it means the one proxy in front. */
const ONE_HOP = new Set(['true', 'yes']);
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const EXPECTED =
  'false, true (one proxy), a hop count (1, 2, ...) or a comma list of proxy addresses and CIDR ranges (e.g. 10.0.0.0/8,127.0.0.1)';

/** A proxy address as proxy-addr compiles it: an IP, an IP/prefix, or a range name. */
function isProxyAddress(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = net.isIP(address);
  if (version === 0 || rest.length > 0 || address.includes('%')) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/** Reads TRUST_PROXY: the setting, or what is wrong with it. */
export function parseTrustProxy(raw: string): { value: TrustProxy } | { problem: string } {
  const text = raw.trim().toLowerCase();
  if (NO.has(text)) return { value: false };
  if (ONE_HOP.has(text)) return { value: 1 };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    return hops <= MAX_PROXY_HOPS
      ? { value: hops }
      : { problem: `at most ${MAX_PROXY_HOPS} proxies in front, not ${hops}` };
  }
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = entries.filter((entry) => !isProxyAddress(entry));
  if (bad.length > 0) {
    return { problem: `must be ${EXPECTED}; not an address: ${bad.join(', ')}` };
  }
  return { value: entries };
}

/**
 * The setting as Fastify's `trustProxy` option. A hop count goes as a function: Fastify's own
 * number option ignores X-Forwarded-* altogether (it cannot vouch for the nearest peer), while
 * proxy-addr's hop rule is what the operator asked for. An address list goes as is.
 */
export function fastifyTrustProxy(trust: TrustProxy): FastifyServerOptions['trustProxy'] {
  if (trust === false || trust === 0) return false;
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust;
  return [...trust];
}

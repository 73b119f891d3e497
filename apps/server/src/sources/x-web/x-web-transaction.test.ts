/**
 * Transaction ids from a page served over loopback HTTP: where the signing script is found
 * (linked by the page, or imported by one of its scripts), that ids decode to the page's key,
 * the time and the request's path, and that renew() reads the page again.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTransactionIds, parseIndices } from './x-web-transaction.js';

const KEY: Buffer = Buffer.from(Array.from({ length: 48 }, (_, i) => (i * 37 + 11) % 256));
const SIGNING = 'function s(n){return [parseInt(n[2], 16),(n[12], 16),(n[14], 16),(n[7], 16)]}';

function page(base: string, key: Buffer, linkSigning: boolean): string {
  const rows = Array.from(
    { length: 16 },
    (_, r) => `C ${Array.from({ length: 11 }, (_, i) => (r * 31 + i * 17 + 5) % 256).join(' ')}`,
  );
  const d = `M 10,30 ${rows.join(' ')}`;
  const frames = [0, 1, 2, 3]
    .map((i) => `<svg id="loading-x-anim-${i}"><g><path d="M0 0"/><path d="${d}"/></g></svg>`)
    .join('');
  const scripts = linkSigning
    ? `<link rel="modulepreload" href="${base}/x-web/assets/sign.o-abc123.js">`
    : `<script type="module" src="${base}/x-web/assets/main-1a2b.js"></script>`;
  return `<!DOCTYPE html><html><head><meta name="twitter-site-verification" content="${key.toString('base64')}">${scripts}</head><body>${frames}</body></html>`;
}

let server: http.Server | null = null;
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

async function serve(linkSigning: boolean) {
  const hits: string[] = [];
  let key = KEY;
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.push(path);
    const base = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    if (path === '/home') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(base, key, linkSigning));
    } else if (path === '/x-web/assets/main-1a2b.js') {
      res.end('const a=1;const load=()=>import("./sign.o-abc123.js");');
    } else if (path === '/x-web/assets/sign.o-abc123.js') {
      res.end(SIGNING);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { baseUrl, hits, setKey: (next: Buffer) => (key = next) };
}

function decode(id: string) {
  const raw = Buffer.from(id, 'base64');
  const bytes = [...raw.subarray(1)].map((b) => b ^ raw[0]!);
  return {
    key: Buffer.from(bytes.slice(0, 48)),
    time: bytes[48]! | (bytes[49]! << 8) | (bytes[50]! << 16) | (bytes[51]! << 24),
    hash: Buffer.from(bytes.slice(52, 68)),
    last: bytes[68],
  };
}

describe('x-client-transaction-id', () => {
  it('reads the indices of the signing script: the row first, then the key bytes', () => {
    expect(parseIndices(SIGNING)).toEqual([2, [12, 14, 7]]);
    expect(() => parseIndices('no indices here')).toThrow(/No indices/);
  });

  it.each([
    ['linked by the page', true],
    ['imported by a script of the page', false],
  ])('finds the signing script %s and makes ids of the key, time and path', async (_n, linked) => {
    const { baseUrl, hits } = await serve(linked);
    const now = 1_790_000_000_000;
    const ids = createTransactionIds({
      page: { baseUrl },
      cookies: () => Promise.resolve(null),
      now: () => now,
    });
    const id = await ids.idFor('get', '/i/api/graphql/abc/UserTweetsAndReplies');
    expect(id).not.toMatch(/=/);
    const parts = decode(id);
    expect(parts.key.equals(KEY)).toBe(true);
    // Seconds since 2023-05-01 (x.com's epoch for these ids), from the real clock.
    const seconds = Math.floor((Date.now() - 1682924400 * 1000) / 1000);
    expect(Math.abs(parts.time - seconds)).toBeLessThan(5);
    expect(parts.last).toBe(3);
    expect(parts.hash).toHaveLength(16);
    // Two ids of one request differ (a random byte), and the page was read once.
    const again = await ids.idFor('GET', '/i/api/graphql/abc/UserTweetsAndReplies');
    expect(again).not.toBe(id);
    expect(hits.filter((h) => h === '/home')).toHaveLength(1);
  });

  it('hashes the method and path into the id', async () => {
    const { baseUrl } = await serve(true);
    const ids = createTransactionIds({ page: { baseUrl }, cookies: () => Promise.resolve(null) });
    await ids.idFor('GET', '/warm-up');
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-11-27T12:00:00Z'));
      const one = decode(await ids.idFor('GET', '/i/api/graphql/abc/One'));
      const two = decode(await ids.idFor('GET', '/i/api/graphql/abc/Two'));
      const post = decode(await ids.idFor('POST', '/i/api/graphql/abc/One'));
      const same = decode(await ids.idFor('GET', '/i/api/graphql/abc/One'));
      expect(one.time).toBe(two.time);
      expect(one.hash.equals(two.hash)).toBe(false);
      expect(one.hash.equals(post.hash)).toBe(false);
      expect(one.hash.equals(same.hash)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reads the page again after renew() and after an hour, with the new key', async () => {
    const { baseUrl, hits, setKey } = await serve(true);
    let now = 1_790_000_000_000;
    const ids = createTransactionIds({
      page: { baseUrl },
      cookies: () => Promise.resolve(null),
      now: () => now,
    });
    await ids.idFor('GET', '/p');
    const rotated = Buffer.from(Array.from({ length: 48 }, (_, i) => (i * 53 + 7) % 256));
    setKey(rotated);
    expect(decode(await ids.idFor('GET', '/p')).key.equals(KEY)).toBe(true);
    ids.renew();
    expect(decode(await ids.idFor('GET', '/p')).key.equals(rotated)).toBe(true);
    setKey(KEY);
    now += 60 * 60_000;
    expect(decode(await ids.idFor('GET', '/p')).key.equals(KEY)).toBe(true);
    expect(hits.filter((h) => h === '/home')).toHaveLength(3);
  });

  it('does not keep a failed read: the next id tries the page again', async () => {
    const { baseUrl, hits } = await serve(true);
    const ids = createTransactionIds({
      page: { baseUrl: `${baseUrl}/nowhere` },
      cookies: () => Promise.resolve(null),
    });
    await expect(ids.idFor('GET', '/p')).rejects.toThrow();
    await expect(ids.idFor('GET', '/p')).rejects.toThrow();
    expect(hits.filter((h) => h === '/nowhere/home')).toHaveLength(2);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createTestDb, type TestDb } from './helpers.js';

/** A built SPA in miniature: what `vite build` writes, with its .br and .gz copies. */
function writeWebDist(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-web-'));
  const script = `console.log(${JSON.stringify('perch '.repeat(400))});`;
  const html = `<!doctype html><html><head><script type="module" src="/dashboard/assets/app-abc123.js"></script></head><body>${'<div></div>'.repeat(200)}</body></html>`;
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.mkdirSync(path.join(dir, '.vite'));
  fs.writeFileSync(path.join(dir, 'index.html'), html);
  fs.writeFileSync(path.join(dir, 'index.html.gz'), zlib.gzipSync(html));
  fs.writeFileSync(path.join(dir, 'assets/app-abc123.js'), script);
  fs.writeFileSync(path.join(dir, 'assets/app-abc123.js.gz'), zlib.gzipSync(script));
  fs.writeFileSync(path.join(dir, 'assets/app-abc123.js.br'), zlib.brotliCompressSync(script));
  fs.writeFileSync(path.join(dir, '.vite/manifest.json'), '{"index.html":{}}');
  return dir;
}

describe('the built web app as the server sends it', () => {
  let db: TestDb;
  let app: FastifyInstance;
  let webDist: string;

  beforeAll(async () => {
    db = await createTestDb('sqlite');
    webDist = writeWebDist();
    app = await buildApp({ config: db.config, db, logger: false, webDist });
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    await db.dispose();
    fs.rmSync(webDist, { recursive: true, force: true });
  });

  it('sends fingerprinted assets compressed ahead of time, cached for a year', async () => {
    const url = '/dashboard/assets/app-abc123.js';
    const script = fs.readFileSync(path.join(webDist, 'assets/app-abc123.js'));
    const br = await app.inject({ url, headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers.vary).toContain('accept-encoding');
    expect(zlib.brotliDecompressSync(br.rawPayload).equals(script)).toBe(true);
    expect(br.rawPayload.length).toBeLessThan(script.length / 5);

    const gz = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).equals(script)).toBe(true);

    const plain = await app.inject({ url });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.equals(script)).toBe(true);
  });

  it('revalidates the page itself, also on deep links, and keeps the build manifest private', async () => {
    for (const url of ['/dashboard/', '/dashboard/settings']) {
      const response = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['cache-control'], url).toBe('no-cache');
    }
    const manifest = await app.inject({ url: '/dashboard/.vite/manifest.json' });
    expect(manifest.body).not.toContain('"index.html":{}');
  });
});

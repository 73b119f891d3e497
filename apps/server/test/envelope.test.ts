import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES, healthResponseSchema } from '@perch/shared';
import { dataOf, expectError, looksLikeStackTrace } from './assertions.js';
import { DIALECTS, TestClient, buildTestApp, type TestApp } from './helpers.js';

describe.each(DIALECTS)('envelope, errors and system routes [%s]', (dialect) => {
  let t: TestApp;
  let client: TestClient;
  beforeAll(async () => {
    t = await buildTestApp(dialect);
    client = new TestClient(t.app);
    await client.get('/api/v1/auth/check');
  });
  afterAll(() => t.close());

  const postRaw = (url: string, payload: string | Buffer, contentType: string) =>
    client.request({ method: 'POST', url, payload, headers: { 'content-type': contentType } });

  it('answers an unknown API path with a 404 envelope', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await client.request({ method, url: '/api/v1/nope?x=1' });
      const envelope = expectError(response, 404, { code: 'NOT_FOUND' });
      expect(envelope.message).toContain('/api/v1/nope');
      expect(envelope.message).not.toContain('x=1');
    }
    expectError(await client.get('/api'), 404, { code: 'NOT_FOUND' });
  });

  it('answers malformed JSON with 400 INVALID_JSON', async () => {
    for (const payload of ['{"username": "a",', '{username: a}', "{'a': 1}", 'undefined']) {
      expectError(await postRaw('/api/v1/auth/login', payload, 'application/json'), 400, {
        message: MESSAGES.malformedJson,
        code: 'INVALID_JSON',
      });
    }
  });

  it('answers an empty JSON body with 400 INVALID_JSON', async () => {
    expectError(await postRaw('/api/v1/auth/login', '', 'application/json'), 400, {
      code: 'INVALID_JSON',
    });
  });

  it('answers a body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ username: 'x'.repeat(1024 * 1024), password: 'whatever-123' });
    expectError(await postRaw('/api/v1/auth/login', big, 'application/json'), 413, {
      message: MESSAGES.payloadTooLarge,
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('accepts a body just under 1 MiB as far as parsing (then validates it)', async () => {
    const near = JSON.stringify({ username: 'x'.repeat(1024 * 1024 - 100), password: 'pw' });
    expectError(await postRaw('/api/v1/auth/login', near, 'application/json'), 400, {
      message: MESSAGES.loginInvalidData,
    });
  });

  it('answers an unexpected content type with a 4xx envelope', async () => {
    const cases: [string, string][] = [
      ['text/plain', 'username=a&password=b'],
      ['application/x-www-form-urlencoded', 'username=a&password=b'],
      ['application/xml', '<login><username>a</username></login>'],
      ['multipart/form-data; boundary=x', '--x\r\n\r\n--x--'],
      ['application/octet-stream', 'binary'],
    ];
    for (const [type, payload] of cases) {
      const response = await postRaw('/api/v1/auth/login', payload, type);
      expect(response.statusCode, `${type}: ${response.body}`).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, `${type}: ${response.body}`).toBeLessThan(500);
      expectError(response, response.statusCode, { success: false });
      if (type !== 'text/plain') {
        expectError(response, 415, {
          code: 'UNSUPPORTED_MEDIA_TYPE',
          message: MESSAGES.unsupportedMediaType,
        });
      }
      expect(looksLikeStackTrace(response.body)).toBe(false);
    }
  });

  it('GET /health reports the database', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const data = dataOf(response, healthResponseSchema);
    expect(data).toMatchObject({ status: 'ok', database: 'ok' });
    expect(Number.isNaN(Date.parse(data.timestamp))).toBe(false);
    expect(data.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('HEAD /health answers 200 with an empty body', async () => {
    const response = await t.app.inject({ method: 'HEAD', url: '/api/v1/health' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
  });

  it('GET /health reports a database outage as 503 degraded', async () => {
    const broken = await buildTestApp(dialect);
    await broken.db.close();
    try {
      const response = await broken.app.inject({ method: 'GET', url: '/api/v1/health' });
      expect(response.statusCode).toBe(503);
      expect(dataOf(response, healthResponseSchema)).toMatchObject({
        status: 'degraded',
        database: 'error',
      });
      expect(looksLikeStackTrace(response.body)).toBe(false);
    } finally {
      await broken.app.close();
      // dispose() closes the connection again, which must be harmless.
      await broken.db.dispose().catch(() => undefined);
    }
  });

  it('redirects / to /dashboard/', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/' });
    expect([301, 302, 303, 307, 308]).toContain(response.statusCode);
    expect(response.headers.location).toBe('/dashboard/');
  });

  it('sends the document policy outside the API, with a strict script policy', async () => {
    for (const url of ['/', '/dashboard/login']) {
      const response = await t.app.inject({ method: 'GET', url });
      const csp = String(response.headers['content-security-policy']);
      expect(csp, url).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBeDefined();
      expect(response.headers['x-powered-by']).toBeUndefined();
      // HSTS only when the site is served over HTTPS (COOKIE_SECURE=true).
      expect(response.headers['strict-transport-security']).toBeUndefined();
    }
  });

  it('sends the API header set: nothing may load, frame or sniff a JSON answer', async () => {
    for (const url of ['/api/v1/health', '/api/v1/nope', '/api/v1/auth/check']) {
      const response = await t.app.inject({ method: 'GET', url });
      const csp = String(response.headers['content-security-policy']);
      expect(csp, url).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['x-powered-by']).toBeUndefined();
      expect(response.headers['strict-transport-security']).toBeUndefined();
    }
  });
});

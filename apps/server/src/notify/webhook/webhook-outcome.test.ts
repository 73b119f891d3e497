import { describe, expect, it } from 'vitest';
import {
  answerResult,
  noAnswerResult,
  retryAfterMs,
  webhookDeliveryError,
} from './webhook-outcome.js';

const NOW = Date.parse('2026-11-29T10:00:00Z');

describe('answerResult', () => {
  it.each([
    [200, true, false],
    [204, true, false],
    [301, false, false],
    [302, false, false],
    [307, false, false],
    [400, false, false],
    [401, false, false],
    [404, false, false],
    [410, false, false],
    [408, false, true],
    [429, false, true],
    [500, false, true],
    [502, false, true],
    [503, false, true],
  ])('%i: ok %s, retryable %s', (status, ok, retryable) => {
    expect(answerResult(status, { body: '', now: NOW })).toMatchObject({ ok, retryable, status });
  });

  it('says redirects are not followed', () => {
    expect(answerResult(302, { body: '', now: NOW }).message).toMatch(/redirects are not followed/);
  });

  it('quotes the start of the answer on one line', () => {
    const { message } = answerResult(400, { body: 'invalid_payload\n  missing text', now: NOW });
    expect(message).toBe('The endpoint answered 400: invalid_payload missing text');
    const long = answerResult(500, { body: 'x'.repeat(1000), now: NOW }).message;
    expect(long).toBe(`The endpoint answered 500: ${'x'.repeat(200)}…`);
  });

  it('takes Retry-After of 429 and 503 only', () => {
    expect(answerResult(429, { retryAfter: '3', body: '', now: NOW }).retryAfterMs).toBe(3000);
    expect(answerResult(503, { retryAfter: '1.5', body: '', now: NOW }).retryAfterMs).toBe(1500);
    expect(answerResult(500, { retryAfter: '3', body: '', now: NOW })).not.toHaveProperty(
      'retryAfterMs',
    );
    expect(answerResult(429, { body: '', now: NOW })).not.toHaveProperty('retryAfterMs');
  });
});

describe('retryAfterMs', () => {
  it.each([
    ['0', 0],
    ['120', 120_000],
    ['Sun, 29 Nov 2026 10:00:30 GMT', 30_000],
    ['Sun, 29 Nov 2026 09:00:00 GMT', 0],
    ['soon', undefined],
    ['-5', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%s is %s ms', (value, ms) => {
    expect(retryAfterMs(value, NOW)).toBe(ms);
  });
});

describe('webhookDeliveryError', () => {
  it('is undefined when delivered', () => {
    expect(webhookDeliveryError(answerResult(200, { body: '', now: NOW }))).toBeUndefined();
  });

  it.each([
    [answerResult(429, { retryAfter: '7', body: '', now: NOW }), 'rate_limited', 7000],
    [answerResult(429, { body: '', now: NOW }), 'rate_limited', 1000],
    [answerResult(503, { body: '', now: NOW }), 'transient', undefined],
    [noAnswerResult('timed out', true), 'transient', undefined],
    [answerResult(404, { body: '', now: NOW }), 'permanent', undefined],
    [answerResult(302, { body: '', now: NOW }), 'permanent', undefined],
    [noAnswerResult('10.0.0.1 is a private network address', false), 'permanent', undefined],
  ])('%o is %s', (result, kind, wait) => {
    const error = webhookDeliveryError(result)!;
    expect(error.kind).toBe(kind);
    expect(error.retryAfterMs).toBe(wait);
    expect(error.message).toBe(result.message);
    if (kind === 'permanent') expect(error.reason).toBe(result.message);
  });
});

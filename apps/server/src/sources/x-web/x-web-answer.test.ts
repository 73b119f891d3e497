import { describe, expect, it } from 'vitest';
import { classifyAnswer, missingFeatures, parseBody, type Answer } from './x-web-answer.js';

function answer(
  status: number,
  body: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { status, headers: new Headers(headers), text, body: parseBody(text) };
}

const error = (code: number, message: string) => ({ errors: [{ code, message }] });
const CLOUDFLARE =
  '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>Cloudflare</body></html>';

describe('what an answer of X means', () => {
  const table: [string, ReturnType<typeof answer>, number | null, Answer['kind'], string?][] = [
    ['data', answer(200, { data: { user: { result: {} } } }), 10, 'ok'],
    ['empty data (no such user)', answer(200, { data: {} }), 10, 'ok'],
    [
      'errors beside data (a missing post among others)',
      answer(200, { data: { tweetResult: [{}] }, ...error(144, 'No status found') }),
      10,
      'ok',
    ],
    [
      'Cloudflare 403',
      answer(403, CLOUDFLARE, { 'content-type': 'text/html', 'cf-ray': '8f' }),
      null,
      'html',
      'Cloudflare (HTTP 403: Just a moment...)',
    ],
    [
      '503 text/html',
      answer(503, '<html><title>Over capacity</title></html>', { 'content-type': 'text/html' }),
      null,
      'html',
    ],
    ['a challenge page answered 200', answer(200, CLOUDFLARE, {}), null, 'html'],
    ['404 with an empty body', answer(404, ''), null, 'stale_transaction'],
    [
      '404 with a body',
      answer(404, { errors: [{ message: 'Not found' }] }),
      null,
      'unknown_operation',
    ],
    [
      '400 naming an unknown query',
      answer(400, error(0, 'Unknown or unspecified query')),
      null,
      'unknown_operation',
    ],
    [
      '400 naming an unknown operation, without JSON',
      answer(400, 'Unknown operation: UserTweetsAndReplies', { 'content-type': 'text/plain' }),
      null,
      'unknown_operation',
    ],
    [
      '336 features',
      answer(400, error(336, 'The following features cannot be null: a_b, c')),
      null,
      'missing_features',
    ],
    [
      '326 locked',
      answer(403, error(326, 'Authorization: Denied by access control')),
      5,
      'account_out',
      'LOCKED',
    ],
    [
      '64 suspended',
      answer(403, error(64, 'Your account is suspended')),
      5,
      'account_out',
      'SUSPENDED',
    ],
    [
      '32 could not authenticate',
      answer(401, error(32, 'Could not authenticate you')),
      null,
      'account_out',
      'EXPIRED',
    ],
    [
      '89 expired token',
      answer(200, error(89, 'Invalid or expired token')),
      null,
      'account_out',
      'EXPIRED',
    ],
    [
      '353 csrf',
      answer(403, error(353, 'This request requires a matching csrf cookie and header')),
      null,
      'account_out',
      'EXPIRED',
    ],
    ['403 without errors', answer(403, ''), null, 'account_out', 'EXPIRED'],
    ['88 with the window spent', answer(429, error(88, 'Rate limit exceeded')), 0, 'rate_limited'],
    ['429 without headers', answer(429, ''), null, 'rate_limited'],
    [
      '88 while the window has requests left',
      answer(200, error(88, 'Rate limit exceeded')),
      40,
      'account_limited',
    ],
    ['131 internal error', answer(200, error(131, 'Internal error')), 10, 'transient'],
    ['LoadShed', answer(200, error(-1, 'LoadShed')), 10, 'transient'],
    ['502', answer(502, ''), null, 'transient'],
    ['366 without data', answer(200, error(366, 'flow_token is no longer valid')), 10, 'refused'],
    [
      '200 with errors and no data',
      answer(200, { data: { user: null }, ...error(37, 'Not authorized') }),
      10,
      'refused',
    ],
    ['other 4xx', answer(400, error(214, 'Bad request')), 10, 'refused'],
  ];

  it.each(table)('%s', (_name, raw, remaining, kind, detail) => {
    const meaning = classifyAnswer(raw, remaining);
    expect(meaning.kind).toBe(kind);
    if (meaning.kind === 'account_out') expect(meaning.status).toBe(detail);
    if (meaning.kind === 'html' && detail) expect(meaning.reason).toBe(detail);
    if (meaning.kind === 'refused') expect(meaning.reason).toMatch(/^\(\d+\) /);
  });

  it("carries X's words for an error without data, never 'not found'", () => {
    const meaning = classifyAnswer(answer(200, error(37, 'Not authorized to view')), 10);
    expect(meaning).toEqual({ kind: 'refused', reason: '(37) Not authorized to view' });
  });

  it('reads the missing features from X’s message, in either place of the code', () => {
    const errors = [
      {
        message: 'The following features cannot be null: rweb_new_flag, another_one',
        extensions: { code: 336 },
      },
    ];
    expect(missingFeatures(errors)).toEqual(['rweb_new_flag', 'another_one']);
    const meaning = classifyAnswer(answer(400, { errors }), null);
    expect(meaning).toMatchObject({
      kind: 'missing_features',
      features: ['rweb_new_flag', 'another_one'],
    });
  });
});

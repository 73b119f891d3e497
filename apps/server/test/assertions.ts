import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { z } from 'zod';
import { errorEnvelopeSchema, successEnvelope, type ErrorEnvelope } from '@perch/shared';
import { aggregatedCount } from '../src/modules/auth/event-aggregation.js';
import { SourceError } from '../src/domain/tweet-source.js';
import { DeliveryError, type DeliveryErrorKind } from '../src/notify/types.js';

/** The failure envelope of a response; fails the test when the body is not exactly that shape. */
export function errorOf(response: LightMyRequestResponse): ErrorEnvelope {
  const parsed = errorEnvelopeSchema.strict().safeParse(parseBody(response));
  if (!parsed.success) {
    throw new Error(`not a failure envelope (${response.statusCode}): ${response.body}`);
  }
  return parsed.data;
}

/** The `data` of a success envelope, checked against the contract schema. */
export function dataOf<T extends z.ZodType>(
  response: LightMyRequestResponse,
  schema: T,
): z.output<T> {
  const envelope = successEnvelope(z.unknown()).safeParse(parseBody(response));
  if (!envelope.success) {
    throw new Error(`not a success envelope (${response.statusCode}): ${response.body}`);
  }
  const data = schema.safeParse(envelope.data.data);
  if (!data.success) {
    throw new Error(`data does not match its contract: ${data.error.message}\n${response.body}`);
  }
  return data.data;
}

function parseBody(response: LightMyRequestResponse): unknown {
  try {
    return JSON.parse(response.body) as unknown;
  } catch {
    throw new Error(`body is not JSON (${response.statusCode}): ${response.body.slice(0, 200)}`);
  }
}

/** Asserts status and failure envelope at once, and returns the envelope. */
export function expectError(
  response: LightMyRequestResponse,
  status: number,
  expected: Partial<ErrorEnvelope> = {},
): ErrorEnvelope {
  expect(response.statusCode, response.body).toBe(status);
  expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
  const envelope = errorOf(response);
  expect(envelope).toMatchObject(expected);
  return envelope;
}

/** Every Set-Cookie header line of a response. */
export function setCookieLines(response: LightMyRequestResponse): string[] {
  const header = response.headers['set-cookie'];
  if (header === undefined) return [];
  return (Array.isArray(header) ? header : [String(header)]).map(String);
}

/** The Set-Cookie line that sets `name`, if any. */
export function setCookieLine(response: LightMyRequestResponse, name: string): string | undefined {
  return setCookieLines(response).find((line) => line.startsWith(`${name}=`));
}

/** The attributes of a Set-Cookie line, lower-cased names, e.g. { httponly: '', path: '/' }. */
export function cookieAttributes(line: string): Record<string, string> {
  const [, ...parts] = line.split(';');
  return Object.fromEntries(
    parts.map((part) => {
      const [name = '', ...value] = part.trim().split('=');
      return [name.toLowerCase(), value.join('=')];
    }),
  );
}

/** The value a Set-Cookie line gives its cookie. */
export function cookieValue(line: string): string {
  const first = line.split(';')[0] ?? '';
  return decodeURIComponent(first.slice(first.indexOf('=') + 1));
}

/** True when a text looks like it carries a stack trace or source paths. */
export function looksLikeStackTrace(text: string): boolean {
  return (
    /\bat [^\s(]+ \(/.test(text) ||
    /\bat (file:\/\/|\/|node:)/.test(text) ||
    /\.(ts|js|mjs|cjs):\d+/.test(text) ||
    /node_modules/.test(text) ||
    /\/work\/|\/home\/|\/tmp\//.test(text)
  );
}

/**
 * How many security events the rows stand for: one each, or an aggregate's count (failed and
 * locked sign-ins beyond the first few of a window, modules/auth/event-aggregation.ts).
 */
export function representedEvents(rows: readonly { metadata: string }[]): number {
  return rows.reduce((sum, row) => sum + (aggregatedCount(row.metadata) ?? 1), 0);
}

/** The error `promise` rejects with; fails the test when it resolves or rejects with another type. */
export async function rejectionOf<E>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
}

/** The source failure `promise` rejects with (a SourceError, or the test fails). */
export const sourceFailure = (promise: Promise<unknown>): Promise<SourceError> =>
  rejectionOf(promise, SourceError);

/** The delivery failure `promise` rejects with, of `kind` when one is given. */
export async function deliveryFailure(
  promise: Promise<unknown>,
  kind?: DeliveryErrorKind,
): Promise<DeliveryError> {
  const error = await rejectionOf(promise, DeliveryError);
  if (kind) expect(error.kind).toBe(kind);
  return error;
}

import { authCheckResponseSchema, successEnvelope } from '@perch/shared';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { responseSerializerCompiler } from './response-serializer.js';

const route = (schema: z.ZodType) => ({
  schema,
  method: 'GET',
  url: '/api/v1/example',
  httpStatus: '200',
});

const serializerOf = (schema: z.ZodType, check: boolean) =>
  responseSerializerCompiler({ check })(route(schema));

describe.each([false, true])('the response serializer (check %s)', (check) => {
  it('writes only what the contract names, nested too', () => {
    const write = serializerOf(
      z.object({ id: z.number(), user: z.object({ name: z.string() }) }),
      check,
    );
    const row = { id: 1, password_hash: 'x', user: { name: 'ann', email: 'a@example.com' } };
    expect(JSON.parse(write(row))).toEqual({ id: 1, user: { name: 'ann' } });
  });

  it('takes the union branch zod takes when an object carries more than a branch names', () => {
    const write = serializerOf(
      z.object({
        value: z.union([z.object({ a: z.number() }), z.object({ b: z.string() })]),
        kind: z.discriminatedUnion('k', [
          z.object({ k: z.literal('x'), x: z.number() }),
          z.object({ k: z.literal('y'), y: z.string() }),
        ]),
      }),
      check,
    );
    const body = { value: { b: 'two', extra: true }, kind: { k: 'y', y: 's', x: 1 } };
    expect(JSON.parse(write(body))).toEqual({ value: { b: 'two' }, kind: { k: 'y', y: 's' } });
  });

  it('writes nulls, leaves out missing optionals and dates as ISO text', () => {
    const write = serializerOf(
      z.object({
        n: z.string().nullable(),
        o: z.number().optional(),
        r: z.record(z.string(), z.number()),
      }),
      check,
    );
    expect(write({ n: null, r: { a: 1 } })).toBe('{"n":null,"r":{"a":1}}');
  });

  it('writes a real envelope exactly as zod and JSON.stringify do', () => {
    const schema = successEnvelope(authCheckResponseSchema);
    const body = {
      success: true,
      data: { authenticated: false, csrfToken: 't'.repeat(43), message: 'Not signed in' },
    };
    expect(serializerOf(schema, check)(body)).toBe(JSON.stringify(z.encode(schema, body as never)));
  });
});

describe('with the check on', () => {
  it('refuses an answer that breaks its contract, as zod did', () => {
    const write = serializerOf(z.object({ count: z.number().int() }), true);
    expect(() => write({ count: 'many' })).toThrow();
  });

  it('refuses what only the contract can tell is wrong', () => {
    // JSON Schema cannot say "a safe integer": the fast serializer alone writes 2^60, the check
    // refuses it as zod did.
    const write = serializerOf(z.object({ n: z.number().int() }), true);
    expect(() => write({ n: 2 ** 60 })).toThrow();
    expect(serializerOf(z.object({ n: z.number().int() }), false)({ n: 2 ** 60 })).toBe(
      `{"n":${2 ** 60}}`,
    );
  });
});

import { isDeepStrictEqual } from 'node:util';
import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import { serializerCompiler as checkedSerializerCompiler } from 'fastify-type-provider-zod';
import { toJSONSchema, type ZodType } from 'zod';

/**
 * Response bodies, written from the routes' zod contracts without running zod on every answer:
 * each route's response schema is turned into JSON Schema once, at start-up, and compiled to a
 * fast-json-stringify function (the serializer plain Fastify routes use). Like zod's output, it
 * writes only the properties the contract names, so an extra column never leaks into an answer.
 *
 * What it does not do is check the answer against the contract. With `check` on (the test
 * runner's default, app.ts), every answer is also encoded the checked way (zod, then
 * JSON.stringify) and the two must be the same JSON, so the whole suite proves the fast
 * serializer equal to the contract on every answer it sees, and an answer that breaks its
 * contract fails the request as it always did.
 */
export function responseSerializerCompiler({
  check,
}: {
  check: boolean;
}): FastifySerializerCompiler<ZodType> {
  return (route) => {
    // Compiled on the route's first answer of this status, not at start-up: a process answers
    // few of its routes' statuses soon, and compiling them all would slow every start.
    let compiled: ((data: unknown) => string) | undefined;
    const fast = (data: unknown) =>
      (compiled ??= fastJson(responseJsonSchema(route.schema) as Parameters<typeof fastJson>[0]))(
        data,
      );
    if (!check) return fast;
    const checked = checkedSerializerCompiler(route);
    return (data) => {
      const expected = checked(data);
      const written = fast(data);
      if (!isDeepStrictEqual(JSON.parse(written), JSON.parse(expected))) {
        throw new Error(
          `The fast serializer of ${route.method} ${route.url} (${route.httpStatus}) wrote ${written}; the contract gives ${expected}`,
        );
      }
      return written;
    };
  };
}

/**
 * The JSON Schema of a response contract, as zod writes its output, without zod's
 * `additionalProperties: false`: the serializer leaves out undeclared properties anyway, and in a
 * union it would make a branch refuse an object that carries one more field than the branch
 * names, where zod takes the first branch that fits and strips the rest.
 */
export function responseJsonSchema(schema: unknown): object {
  const zodSchema = isZod(schema)
    ? schema
    : (schema as { properties?: unknown } | undefined)?.properties;
  if (!isZod(zodSchema)) throw new Error(`Not a zod response schema: ${JSON.stringify(schema)}`);
  return withoutClosedObjects(
    toJSONSchema(zodSchema, { io: 'output', target: 'draft-7', unrepresentable: 'any' }),
  ) as object;
}

function withoutClosedObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutClosedObjects);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'additionalProperties' && value === false))
      .map(([key, value]) => [key, withoutClosedObjects(value)]),
  );
}

function isZod(value: unknown): value is ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

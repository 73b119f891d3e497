import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEnvelopeSchema } from '@perch/shared';
import { closeSession, openSession } from '../src/modules/auth/sessions.service.js';
import { sessionCsrfToken } from '../src/modules/auth/csrf-token.js';
import {
  findHandleByName,
  findLinkedHandle,
  insertHandle,
  insertLink,
} from '../src/modules/handles/handles.repository.js';
import { looksLikeStackTrace } from './assertions.js';
import { startFakeDiscordServer, type FakeDiscordServer } from './fakes/fake-discord-server.js';
import { startFakeTelegramServer, type FakeTelegramServer } from './fakes/fake-telegram-server.js';
import { startFakeXServer, type FakeXServer } from './fakes/fake-x-server.js';
import { DIALECTS, TestClient, buildTestApp, inviteCode, type TestApp } from './helpers.js';
import { channelsFor } from './notify-helpers.js';
import { registeredRoutes } from './routes.js';

/**
 * Property-based fuzzing of every /api/v1 route the app registers: generated hostile path
 * parameters, query strings, bodies, content types and cookies, sent as an anonymous visitor, a
 * signed-in user, a super admin and a client with junk cookies, always with a valid CSRF pair so
 * requests reach validation and handlers. Every answer must be below 500, a failure envelope when
 * it is an error, and free of stack traces, source paths and database messages.
 *
 * Deterministic by default: FUZZ_SEED=<integer> picks other inputs (FUZZ_SEED=random a new seed
 * each run), FUZZ_RUNS=<n> sets the requests per route, FUZZ_SHRINK=1 shrinks a failure to a
 * smaller input. A failure prints the seed and the command that repeats it.
 */

const API = '/api/v1';
const BASE_SEED =
  process.env.FUZZ_SEED === 'random'
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env.FUZZ_SEED ?? 20_250_917);
const RUNS = Number(process.env.FUZZ_RUNS ?? 50);
const SHRINK = process.env.FUZZ_SHRINK === '1';

// ---------------------------------------------------------------------------------------------
// What the app says about its routes
// ---------------------------------------------------------------------------------------------

/** The parts of an OpenAPI schema the generators read. */
interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  format?: string;
}

interface OpenApiOperation {
  parameters?: { in: string; name: string; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

interface FuzzRoute {
  method: string;
  /** As registered, parameters written `:name`. */
  path: string;
  /** Query parameters the route declares, by name. */
  query: Record<string, JsonSchema>;
  /** The JSON body the route declares, if any. */
  body?: JsonSchema;
}

/** A path with every parameter written `{}`, so router and OpenAPI paths compare equal. */
const pathShape = (path: string) => path.replace(/:[^/]+|\{[^}]+\}/g, '{}');

/**
 * Every /api/v1 route of a fully configured app, with the query and body schemas its OpenAPI
 * document declares (routes it hides are fuzzed with generic input only).
 */
async function fuzzRoutes(): Promise<FuzzRoute[]> {
  const t = await buildTestApp('sqlite', { DEV_LOGIN: 'true' });
  try {
    const spec = t.app.swagger() as { paths: Record<string, Record<string, OpenApiOperation>> };
    const operations = new Map<string, OpenApiOperation>();
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        operations.set(`${method.toUpperCase()} ${pathShape(path)}`, operation);
      }
    }
    return registeredRoutes(t.app, `${API}/`).map(({ method, path }) => {
      const operation = operations.get(`${method} ${pathShape(path)}`);
      const query = Object.fromEntries(
        (operation?.parameters ?? [])
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => [parameter.name, parameter.schema ?? {}]),
      );
      const body = operation?.requestBody?.content?.['application/json']?.schema;
      return { method, path, query, ...(body ? { body } : {}) };
    });
  } finally {
    await t.close();
  }
}

const ROUTES = await fuzzRoutes();

// ---------------------------------------------------------------------------------------------
// JSON that JSON.stringify cannot write: keys such as __proto__, duplicates, deep nesting
// ---------------------------------------------------------------------------------------------

/** An object as the list of its members, so any key (even `__proto__`, even twice) survives. */
class Members {
  constructor(readonly entries: [string, Json][]) {}
}

/** JSON text used as is (deep nesting is cheaper to write than to build). */
class RawJson {
  constructor(readonly text: string) {}
}

type Json = null | boolean | number | string | Json[] | Members | RawJson;

function jsonText(value: Json): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Members) {
    return `{${value.entries.map(([key, member]) => `${JSON.stringify(key)}:${jsonText(member)}`).join(',')}}`;
  }
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  return JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

/** Values that come up in exploits and in bug reports. */
const HOSTILE_TEXTS = [
  '',
  ' ',
  '\u0000',
  'user\u0000name',
  '.',
  '..',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00',
  '%2e%2e%2f',
  '<script>alert(1)</script>',
  "' OR '1'='1' --",
  '"; DROP TABLE users; --',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '%s%s%s%n',
  '\u202Eevil.exe',
  'a\u200B\u200Cb\uFEFF',
  'ab\uD800cd',
  '\uDFFF',
  '用户名',
  '👩‍💻🔥',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  'NaN',
  'Infinity',
  '-Infinity',
  '-1',
  '0',
  '1.5',
  '1e309',
  '0x1F',
  '9007199254740993',
  '99999999999999999999999999999',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'line\r\nX-Injected: 1',
  'PERCH-AAAA-BBBB-CCCC',
  'a@b.co',
];

const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_TEXTS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 256, max: 200_000 }).map((n) => 'x'.repeat(n)) },
);

const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    -1,
    0.5,
    1e308,
    -1e308,
    5e-324,
    2 ** 31,
    2 ** 32,
    2 ** 53,
    2 ** 53 + 2,
    2 ** 64,
    -(2 ** 63),
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Nesting deep enough to overflow a recursive parser, validator or serializer. */
const deepJson: fc.Arbitrary<Json> = fc
  .record({ depth: fc.integer({ min: 64, max: 20_000 }), asArray: fc.boolean() })
  .map(({ depth, asArray }) =>
    asArray
      ? new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`)
      : new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  );

/** Keys that pollute prototypes when an object is merged naively. */
const pollutingMember: fc.Arbitrary<[string, Json]> = fc.constantFrom<[string, Json]>(
  [
    '__proto__',
    new Members([
      ['isAdmin', true],
      ['polluted', true],
    ]),
  ],
  ['constructor', new Members([['prototype', new Members([['polluted', true]])]])],
  ['__proto__', null],
  ['prototype', new Members([['polluted', true]])],
);

const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: hostileText },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, [], new Members([])) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> },
  { weight: 1, arbitrary: deepJson },
  { weight: 1, arbitrary: pollutingMember.map((member) => new Members([member])) },
);

/** Real ids and names, so some requests get past "not found" into the handlers. */
interface Fixtures {
  /** Values of path parameters that name real rows, by parameter name. */
  params: Record<string, string[]>;
  strings: string[];
  ids: number[];
}

/** Text that passes for a username or an X handle. */
const handleLike = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_'),
  minLength: 1,
  maxLength: 15,
});

/** Values shaped like what the schema asks for, now and then wrong. */
function fromSchema(schema: JsonSchema, fixtures: Fixtures, depth = 0): fc.Arbitrary<Json> {
  const alternatives = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (alternatives && alternatives.length > 0 && depth < 4) {
    return fc.oneof(...alternatives.map((option) => fromSchema(option, fixtures, depth + 1)));
  }
  if (schema.const !== undefined) {
    return fc.oneof(fc.constant(schema.const as Json), hostileValue);
  }
  if (schema.enum && schema.enum.length > 0) {
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...(schema.enum as Json[])) },
      { weight: 1, arbitrary: hostileValue },
    );
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const shaped = shapedValue(type, schema, fixtures, depth);
  return fc.oneof({ weight: 3, arbitrary: shaped }, { weight: 1, arbitrary: hostileValue });
}

function shapedValue(
  type: string | undefined,
  schema: JsonSchema,
  fixtures: Fixtures,
  depth: number,
): fc.Arbitrary<Json> {
  switch (type) {
    case 'object':
      return depth < 4 ? objectFromSchema(schema, fixtures, depth) : fc.constant(new Members([]));
    case 'array':
      return depth < 4
        ? fc.array(fromSchema(schema.items ?? {}, fixtures, depth + 1), { maxLength: 4 })
        : fc.constant([]);
    case 'string':
      return fc.oneof(
        fc.string({ maxLength: 24 }),
        fc.constantFrom(...fixtures.strings),
        schema.format === 'email' ? fc.emailAddress() : handleLike,
      );
    case 'integer':
    case 'number':
      return fc.oneof(
        fc.integer({
          min: Math.max(schema.minimum ?? -5, -1_000_000),
          max: Math.min(schema.maximum ?? 100, 1_000_000),
        }),
        fc.constantFrom(...fixtures.ids),
        fc.constantFrom(2 ** 31 - 1, 2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER),
      );
    case 'boolean':
      return fc.boolean();
    default:
      return hostileValue;
  }
}

/** An object with any of its declared members, extra keys, or members that pollute. */
function objectFromSchema(
  schema: JsonSchema,
  fixtures: Fixtures,
  depth: number,
): fc.Arbitrary<Json> {
  const declared = Object.entries(schema.properties ?? {}).map(([key, property]) =>
    fc.option(
      fromSchema(property, fixtures, depth + 1).map((value): [string, Json] => [key, value]),
      { freq: 4, nil: undefined },
    ),
  );
  const extra = fc.array(
    fc.oneof(
      fc.tuple(fc.string({ maxLength: 12 }), hostileValue),
      fc.tuple(fc.constantFrom('isAdmin', 'is_super_admin', 'role', 'id', 'user_id'), hostileValue),
      pollutingMember,
    ),
    { maxLength: 2 },
  );
  return fc
    .tuple(fc.tuple(...declared), extra, fc.boolean())
    .map(([members, more, pollutedFirst]) => {
      const present = members.filter((member): member is [string, Json] => member !== undefined);
      return new Members(pollutedFirst ? [...more, ...present] : [...present, ...more]);
    });
}

/**
 * A path parameter, already percent-encoded (or deliberately broken). `names` are the names the
 * router knows the parameter by (`:id|:handle` where routes share a segment).
 */
function pathSegment(fixtures: Fixtures, names: string[] = []): fc.Arbitrary<string> {
  const real = names.flatMap((name) => fixtures.params[name] ?? []);
  return fc.oneof(
    ...(real.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...real) }] : []),
    { weight: 2, arbitrary: fc.constantFrom(...fixtures.strings, ...fixtures.ids.map(String)) },
    { weight: 2, arbitrary: hostileText.map(encodeText) },
    { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '..',
        '.',
        '%2e%2e',
        '..%2F..%2Fetc%2Fpasswd',
        '%00',
        'a%00b',
        '%',
        '%ZZ',
        '%E0%A4%A',
        '%C0%AF',
        '%FF%FE',
        '%uD800',
        '%20',
        '+',
        '1;a=b',
        '1%3Fx%3D1',
        '-1',
        '1.5',
        '1e3',
        '1e10',
        '0x10',
        '00001',
        // Just past what a Postgres integer column holds, and past 2^53.
        '2147483648',
        '4294967296',
        '9007199254740993',
        '9223372036854775808',
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }).map((n) => 'a'.repeat(n)) },
  );
}

/** Percent-encodes text; lone surrogates (which cannot be encoded) become U+FFFD. */
function encodeText(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent(text.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
  }
}

/** One `key=value` part of a query string, or a broken one. */
function queryPart(route: FuzzRoute, fixtures: Fixtures): fc.Arbitrary<string> {
  const names = Object.keys(route.query);
  const known =
    names.length > 0
      ? fc.constantFrom(...names).chain((name) => {
          const schema = route.query[name] ?? {};
          return fc
            .oneof(
              fromSchema(schema, fixtures).map((value) =>
                typeof value === 'string' ? value : jsonText(value),
              ),
              hostileText,
            )
            .map((value) => `${name}=${encodeText(value)}`);
        })
      : fc.constant('page=1');
  return fc.oneof(
    { weight: 4, arbitrary: known },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.string({ maxLength: 10 }), hostileText)
        .map(([key, value]) => `${encodeText(key)}=${encodeText(value)}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...(names.length > 0 ? names : ['limit'])), hostileText)
        .chain(([name, value]) =>
          fc.constantFrom(
            `${name}[]=${encodeText(value)}`,
            `${name}[a]=${encodeText(value)}`,
            `${name}[__proto__]=1`,
            `${name}`,
            `${name}=`,
            `${name}=1&${name}=${encodeText(value)}`,
          ),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '&',
        '=',
        '=1',
        '%',
        '%ZZ=1',
        'a=%E0%A4%A',
        '__proto__=1',
        '__proto__[polluted]=1',
        'constructor[prototype][polluted]=1',
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1_000, max: 100_000 })
        .map((n) => `${names[0] ?? 'q'}=${'9'.repeat(n)}`),
    },
  );
}

type BodyKind = 'none' | 'json' | 'text';

interface FuzzBody {
  kind: BodyKind;
  /** JSON members, serialized when sent (kind json). */
  json?: Json;
  /** Raw text (kind text). */
  text?: string;
  contentType?: string;
}

const CONTENT_TYPES = [
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=perch',
  'application/xml',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;',
  'application/json, text/plain',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/jsonx',
  '*/*',
  'json',
];

const INVALID_JSON = [
  '',
  '{',
  '}',
  '{"a":1,}',
  "{'a':1}",
  '{"a":undefined}',
  '\uFEFF{}',
  'NaN',
  '[1,2',
  '{"a":"\\x00"}',
  '{"a":"\\ud800"}',
  'nul',
  '"unterminated',
  '{"a" 1}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
];

function bodyFor(route: FuzzRoute, fixtures: Fixtures): fc.Arbitrary<FuzzBody> {
  const shaped = route.body ? fromSchema(route.body, fixtures) : hostileValue;
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<FuzzBody>({ kind: 'none' }) },
    { weight: 6, arbitrary: shaped.map((json): FuzzBody => ({ kind: 'json', json })) },
    { weight: 2, arbitrary: hostileValue.map((json): FuzzBody => ({ kind: 'json', json })) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(fc.constantFrom(...INVALID_JSON), fc.string({ unit: 'binary', maxLength: 60 }))
        .map((text): FuzzBody => ({ kind: 'text', text, contentType: 'application/json' })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...CONTENT_TYPES),
          fc.oneof(shaped.map(jsonText), fc.constantFrom('a=1&b=2', '--perch--', '<a/>')),
        )
        .map(([contentType, text]): FuzzBody => ({ kind: 'text', text, contentType })),
    },
    {
      weight: 1,
      arbitrary: fc.constant<FuzzBody>({
        kind: 'text',
        text: `{"a":"${'x'.repeat(1024 * 1024)}"}`,
        contentType: 'application/json',
      }),
    },
  );
}

type Actor = 'anonymous' | 'user' | 'superadmin' | 'junk-cookies';

interface FuzzRequest {
  actor: Actor;
  method: string;
  /** Path and query, already encoded. */
  url: string;
  body: FuzzBody;
  /** For the junk-cookies actor. */
  cookie?: string;
  headers: Record<string, string>;
}

const printable = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 160,
});

/** Cookie headers no browser would send. */
const junkCookie: fc.Arbitrary<string> = fc.oneof(
  printable
    .filter((text) => !text.includes(';'))
    .map((text) => `perch_session=${text}; perch_csrf=${'c'.repeat(40)}`),
  fc.constantFrom(
    `perch_session=${'a'.repeat(128)}; perch_csrf=${'c'.repeat(40)}`,
    `perch_session=${'a'.repeat(129)}; perch_csrf=${'c'.repeat(40)}`,
    `perch_session=%E0%A4%A; perch_csrf=${'c'.repeat(40)}`,
    `perch_session="%ZZ"; perch_csrf=${'c'.repeat(40)}`,
    `perch_session=; perch_session=x; perch_csrf=${'c'.repeat(40)}`,
    `perch_csrf=${'c'.repeat(40)}; perch_csrf=${'d'.repeat(40)}`,
    `=;=;;perch_csrf=${'c'.repeat(40)}`,
    `perch_csrf=${'c'.repeat(129)}`,
    `perch_csrf=%${'c'.repeat(40)}`,
    `__proto__=x; perch_csrf=${'c'.repeat(40)}`,
  ),
);

const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.record(
  {
    'if-none-match': fc.oneof(printable, fc.constantFrom('*', 'W/"1-2-3"', '"', 'W/')),
    accept: fc.oneof(printable, fc.constantFrom('text/event-stream', '*/*', 'application/xml')),
    'accept-language': printable,
    'user-agent': fc.oneof(printable, fc.constant('x'.repeat(10_000))),
    'x-forwarded-for': fc.oneof(printable, fc.constantFrom('::1', '1.1.1.1, 2.2.2.2', 'unknown')),
  },
  { requiredKeys: [] },
);

function requestFor(route: FuzzRoute, fixtures: Fixtures): fc.Arbitrary<FuzzRequest> {
  const params = route.path
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => segment.split('|').map((name) => name.replace(/^:/, '')));
  const sendsBody = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method);
  return fc
    .record({
      // Mostly signed in: anonymous requests rarely get past the session check.
      actor: fc.oneof(
        { weight: 3, arbitrary: fc.constant<Actor>('user') },
        { weight: 3, arbitrary: fc.constant<Actor>('superadmin') },
        { weight: 1, arbitrary: fc.constant<Actor>('anonymous') },
        { weight: 1, arbitrary: fc.constant<Actor>('junk-cookies') },
      ),
      segments: fc.tuple(...params.map((names) => pathSegment(fixtures, names))),
      query: fc.option(fc.array(queryPart(route, fixtures), { minLength: 1, maxLength: 5 }), {
        freq: 2,
        nil: undefined,
      }),
      body: sendsBody ? bodyFor(route, fixtures) : fc.constant<FuzzBody>({ kind: 'none' }),
      cookie: junkCookie,
      headers: fc.option(extraHeaders, { freq: 3, nil: undefined }),
    })
    .map(({ actor, segments, query, body, cookie, headers }) => {
      let index = 0;
      const path = route.path
        .split('/')
        .map((segment) => (segment.startsWith(':') ? (segments[index++] ?? '') : segment))
        .join('/');
      return {
        actor,
        method: route.method,
        url: query ? `${path}?${query.join('&')}` : path,
        body,
        ...(actor === 'junk-cookies' ? { cookie } : {}),
        headers: headers ?? {},
      };
    });
}

// ---------------------------------------------------------------------------------------------
// Sending and judging
// ---------------------------------------------------------------------------------------------

interface Answer {
  status: number;
  contentType: string;
  /** A download (Content-Disposition: attachment) is a file, not an envelope. */
  download: boolean;
  body: string;
}

/** Sends one request; an event stream is checked by its head and then let go. */
async function send(
  app: FastifyInstance,
  request: FuzzRequest,
  cookies: Record<Actor, string>,
  csrf: Record<Actor, string>,
): Promise<Answer> {
  const headers: Record<string, string> = { ...request.headers };
  headers.cookie = request.cookie ?? cookies[request.actor];
  headers['x-csrf-token'] = csrf[request.actor];
  const options: InjectOptions = {
    method: request.method as InjectOptions['method'],
    url: request.url,
    headers,
    remoteAddress: '10.99.0.1',
    payloadAsStream: true,
  };
  if (request.body.kind === 'json') {
    options.payload = jsonText(request.body.json ?? null);
    headers['content-type'] = 'application/json';
  } else if (request.body.kind === 'text') {
    options.payload = request.body.text ?? '';
    if (request.body.contentType) headers['content-type'] = request.body.contentType;
  }
  const response = await app.inject(options);
  const contentType = String(response.headers['content-type'] ?? '');
  const download = String(response.headers['content-disposition'] ?? '').startsWith('attachment');
  if (contentType.startsWith('text/event-stream')) {
    response.raw.res.destroy();
    return { status: response.statusCode, contentType, download, body: '' };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of response.stream()) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString();
  return { status: response.statusCode, contentType, download, body };
}

/** Messages that only a database driver or a runtime writes. */
const INTERNAL_TEXT =
  /SqliteError|SQLITE_[A-Z]|syntax error at or near|violates [a-z ]*constraint|duplicate key value|relation "[^"]*" does not exist|ZodError|Cannot read propert|is not a function|Maximum call stack/;

/** What is wrong with an answer, or null when it is a proper answer to bad input. */
function problemWith(answer: Answer, request: FuzzRequest): string | null {
  if (answer.status >= 500) return `status ${answer.status}`;
  const sent = `${request.url} ${request.body.text ?? ''} ${request.body.json === undefined ? '' : jsonText(request.body.json)}`;
  if (looksLikeStackTrace(answer.body) && !looksLikeStackTrace(sent)) {
    return 'stack trace or source path in the body';
  }
  if (INTERNAL_TEXT.test(answer.body) && !INTERNAL_TEXT.test(sent)) {
    return 'internal error text in the body';
  }
  if (answer.status >= 400) {
    if (!answer.contentType.startsWith('application/json')) {
      return `error answered as ${answer.contentType || 'no content type'}`;
    }
    let envelope: unknown;
    try {
      envelope = JSON.parse(answer.body);
    } catch {
      return 'error body is not JSON';
    }
    if (!errorEnvelopeSchema.strict().safeParse(envelope).success) {
      return 'error body is not the failure envelope {success: false, message, code}';
    }
    return null;
  }
  if (
    answer.status < 300 &&
    answer.contentType.startsWith('application/json') &&
    !answer.download
  ) {
    const body = JSON.parse(answer.body) as { success?: unknown } | null;
    if (body?.success !== true) return '2xx JSON without success: true';
  }
  return null;
}

/** Long strings cut short, so a failure report stays readable. */
function clip(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

function describeRequest(request: FuzzRequest): string {
  const payload =
    request.body.kind === 'json'
      ? `application/json ${clip(jsonText(request.body.json ?? null))}`
      : request.body.kind === 'text'
        ? `${request.body.contentType ?? 'no content type'} ${clip(JSON.stringify(request.body.text))}`
        : 'no body';
  return [
    `${request.method} ${clip(request.url)} as ${request.actor}`,
    `body: ${payload}`,
    ...(request.cookie ? [`cookie: ${clip(request.cookie)}`] : []),
    ...Object.entries(request.headers).map(([name, value]) => `${name}: ${clip(value, 120)}`),
  ].join('\n    ');
}

/** A per-route seed: adding a route leaves the inputs of the others as they were. */
function seedFor(route: FuzzRoute): number {
  return createHash('sha256')
    .update(`${BASE_SEED} ${route.method} ${route.path}`)
    .digest()
    .readInt32BE(0);
}

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

describe.each(DIALECTS)('fuzzing every API route [%s]', (dialect) => {
  let t: TestApp;
  let telegram: FakeTelegramServer;
  let discord: FakeDiscordServer;
  let x: FakeXServer;
  let fixtures: Fixtures;
  let userId: number;
  let superAdminId: number;
  let invitationId: number;
  const anonymousCsrf = randomBytes(32).toString('base64url');
  /** The CSRF token each actor sends: a signed-in one's is its session's (csrf-token.ts). */
  const csrf: Record<Actor, string> = {
    anonymous: anonymousCsrf,
    user: '',
    superadmin: '',
    'junk-cookies': 'c'.repeat(40),
  };
  const sessions: Partial<Record<'user' | 'superadmin', string>> = {};

  beforeAll(async () => {
    telegram = await startFakeTelegramServer({ floodLimits: null });
    discord = await startFakeDiscordServer({ globalPerSecond: 100_000 });
    x = await startFakeXServer();
    t = await buildTestApp(
      dialect,
      {
        DEV_LOGIN: 'true',
        X_CLIENT_ID: x.clientId,
        X_API_BASE_URL: x.baseUrl,
        X_OAUTH_AUTHORIZE_URL: `${x.baseUrl}/i/oauth2/authorize`,
        TELEGRAM_BOT_TOKEN: telegram.token,
        TELEGRAM_API_BASE_URL: telegram.baseUrl,
        TELEGRAM_POLL_UPDATES: 'false',
        DISCORD_BOT_TOKEN: discord.token,
        DISCORD_API_BASE_URL: discord.baseUrl,
      },
      { notify: { channels: channelsFor(telegram, discord, { fast: true }) } },
    );
    const root = new TestClient(t.app, '10.99.0.2');
    superAdminId = (await root.register(t.db, 'fuzz_root', 'superadmin')).data.user.id;
    const user = new TestClient(t.app, '10.99.0.3');
    userId = (await user.register(t.db, 'fuzz_user')).data.user.id;
    const invitation = await root.post(`${API}/admin/invitations`, {
      role: 'user',
      max_uses: 1,
      expires_in_days: 7,
    });
    invitationId = (invitation.json() as { data: { invitation: { id: number } } }).data.invitation
      .id;
    fixtures = {
      params: { handle: ['typical_fz'] },
      strings: ['typical_fz', 'fuzz_user', 'fuzz_root', await inviteCode(t.db), '12345678'],
      ids: [],
    };
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await telegram?.close();
    await discord?.close();
    await x?.close();
  });

  /**
   * The user follows typical_fz again (an earlier route may have deleted it or its link), so
   * requests naming it reach the handlers behind "not found".
   */
  async function restoreFollowedHandle(): Promise<void> {
    const now = new Date().toISOString();
    const handle =
      (await findHandleByName(t.db.db, 'typical_fz')) ??
      (await insertHandle(t.db.db, { username: 'typical_fz', backfillDays: 7, now }));
    if (!(await findLinkedHandle(t.db.db, userId, handle.id))) {
      await insertLink(t.db.db, { userId, handleId: handle.id, backfillDays: 7, now });
    }
    fixtures.params.id = [String(handle.id), String(userId), String(invitationId)];
    fixtures.params.handleId = [String(handle.id)];
    fixtures.ids = [userId, superAdminId, handle.id, invitationId, 1, 0];
  }

  /** Fresh sessions for each route: a fuzzed sign-out must not leave the next route anonymous. */
  async function cookiesForRoute(): Promise<Record<Actor, string>> {
    const client = { ip: '10.99.0.1', userAgent: 'fuzz' };
    for (const token of Object.values(sessions)) {
      await closeSession(t.db, createHash('sha256').update(token).digest('hex'));
    }
    // Signed in just now (authenticated), so the routes behind the step-up are reached too.
    const signedIn = { authenticated: true };
    sessions.user = (await openSession(t.db, userId, false, client, signedIn)).token;
    sessions.superadmin = (await openSession(t.db, superAdminId, false, client, signedIn)).token;
    csrf.user = sessionCsrfToken(sessions.user);
    csrf.superadmin = sessionCsrfToken(sessions.superadmin);
    return {
      anonymous: `perch_csrf=${anonymousCsrf}`,
      user: `perch_session=${sessions.user}; perch_csrf=${csrf.user}`,
      superadmin: `perch_session=${sessions.superadmin}; perch_csrf=${csrf.superadmin}`,
      'junk-cookies': '',
    };
  }

  it('tells a proper answer from a broken one', () => {
    const request: FuzzRequest = {
      actor: 'user',
      method: 'GET',
      url: `${API}/handles`,
      body: { kind: 'none' },
      headers: {},
    };
    const json = 'application/json; charset=utf-8';
    const answer = (status: number, body: string, contentType = json): Answer => ({
      status,
      contentType,
      download: false,
      body,
    });
    const envelope = '{"success":false,"message":"No.","code":"NOPE"}';
    expect(problemWith(answer(400, envelope), request)).toBeNull();
    expect(problemWith(answer(200, '{"success":true,"data":{}}'), request)).toBeNull();
    expect(problemWith(answer(500, envelope), request)).toMatch(/status 500/);
    expect(problemWith(answer(400, '{"error":"Bad Request"}'), request)).toMatch(/envelope/);
    expect(problemWith(answer(404, 'Not found', 'text/plain'), request)).toMatch(/text\/plain/);
    expect(problemWith(answer(400, `{"message":"at f (/app/src/x.ts:1:2)"}`), request)).toMatch(
      /stack trace/,
    );
    expect(problemWith(answer(400, '{"message":"SqliteError: no such column"}'), request)).toMatch(
      /internal/,
    );
  });

  it('reads the route table from the app', () => {
    const keys = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(keys).toEqual(
      expect.arrayContaining([
        'POST /api/v1/auth/login',
        'GET /api/v1/handles',
        'GET /api/v1/events',
        'PUT /api/v1/admin/users/:id/role',
      ]),
    );
    expect(keys.every((key) => !key.startsWith('HEAD '))).toBe(true);
    expect(ROUTES.filter((route) => route.body).length).toBeGreaterThan(10);
  });

  it.each(ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: no 5xx, an envelope for every error, nothing internal',
    async (name, route) => {
      await restoreFollowedHandle();
      const cookies = await cookiesForRoute();
      const seed = seedFor(route);
      const details = await fc.check(
        fc.asyncProperty(requestFor(route, fixtures), async (request) => {
          const answer = await send(t.app, request, cookies, csrf);
          const problem = problemWith(answer, request);
          if (problem) throw new Error(`${problem}\n    answer: ${clip(answer.body, 600)}`);
        }),
        { seed, numRuns: RUNS, endOnFailure: !SHRINK },
      );
      if (details.failed) {
        const request = details.counterexample?.[0];
        throw new Error(
          [
            `${name} failed after ${details.numRuns} requests (seed ${seed}, path ${details.counterexamplePath}).`,
            `    ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
            ...(request ? [`    request: ${describeRequest(request)}`] : []),
            `    repeat: ${dialect === 'postgres' ? 'TEST_DATABASE_URL=<url> ' : ''}FUZZ_SEED=${BASE_SEED} npx vitest run test/fuzz.test.ts -t '${name}'`,
          ].join('\n'),
        );
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
    60_000,
  );

  // Inputs fuzzing found once; kept as plain cases so they never come back unnoticed.
  it('answers ids past a Postgres integer with 400, not a database error', async () => {
    const cookies = await cookiesForRoute();
    for (const id of ['2147483648', '4294967296', '1e10']) {
      const requests: FuzzRequest[] = [
        {
          actor: 'user',
          method: 'DELETE',
          url: `${API}/handles/${id}`,
          body: { kind: 'none' },
          headers: {},
        },
        {
          actor: 'user',
          method: 'PUT',
          url: `${API}/handles/${id}/notifications`,
          body: { kind: 'json', json: new Members([['telegramEnabled', true]]) },
          headers: {},
        },
      ];
      for (const request of requests) {
        const answer = await send(t.app, request, cookies, csrf);
        expect(answer.status, describeRequest(request)).toBe(400);
        expect(problemWith(answer, request)).toBeNull();
      }
    }
  });

  it('answers unrouted methods and paths under /api/v1 with a 404 envelope', async () => {
    const cookies = await cookiesForRoute();
    const unrouted = fc.record({
      actor: fc.constantFrom<Actor>('anonymous', 'user', 'superadmin'),
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
      segments: fc.array(
        pathSegment({ params: {}, strings: ['admin', 'handles', 'x'], ids: [1] }),
        {
          minLength: 1,
          maxLength: 4,
        },
      ),
    });
    await fc.assert(
      fc.asyncProperty(unrouted, async ({ actor, method, segments }) => {
        const request: FuzzRequest = {
          actor,
          method,
          url: `${API}/${segments.join('/')}`,
          body: { kind: 'none' },
          headers: {},
        };
        const answer = await send(t.app, request, cookies, csrf);
        const problem = problemWith(answer, request);
        if (problem) throw new Error(`${problem}: ${describeRequest(request)}`);
      }),
      { seed: BASE_SEED, numRuns: RUNS * 4 },
    );
  });
});

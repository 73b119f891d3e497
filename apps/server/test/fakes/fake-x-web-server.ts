/**
 * A loopback fake of X's private web API, its web client and its sign-in flow
 * (TWEET_SOURCE=x-web), on 127.0.0.1:0 with node:http, behaving as x.com did in late 2026
 * (twscrape 0.20, Nitter 2026-08, x-client-transaction-id 0.3.1; docs/decisions.md, "x-web
 * source"):
 *
 * - GET /home (and /) and /x-web/assets/*.js: the web client (fake-x-web-client.ts) a client
 *   reads to make transaction ids and to resolve the operations' query ids and features.
 * - Every GraphQL and sign-in request carries a valid x-client-transaction-id; without one, or
 *   with one of another key, X answers 404 with an empty body. So does a query id that is not
 *   the operation's current one.
 * - The sign-in flow (guest token, onboarding task steps): fake-x-web-sign-in.ts.
 * - GET /i/api/graphql/:id/:operation for UserByScreenName, UserTweets, UserTweetsAndReplies,
 *   UsersByRestIds and TweetResultsByRestIds with the session cookies, ct0 echoed in
 *   x-csrf-token, every feature switch the operation requires (missing: 400, code 336),
 *   x-rate-limit-* headers per account and operation (spent: 429 and 88), 326 for a locked
 *   account, 64 for a suspended one, 32 (401) for an ended session.
 * - Cloudflare's challenge page (403 or 503, text/html, cf-ray) on demand, for any request.
 * - Wire objects and timelines: fake-x-web-timeline.ts.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { X_WEB_OPERATIONS, type XWebOperation } from '@perch/shared';
import type { SourceTweet } from '../../src/domain/tweet-source.js';
import { X_WEB_BEARER } from '../../src/sources/x-web/x-web-http.js';
import {
  createFakeWebClient,
  type FakeXWebClientFacts,
  type FakeXWebOperationEntry,
} from './fake-x-web-client.js';
import { createSignIn, type FakeAccount, type FakeXWebAccountInput } from './fake-x-web-sign-in.js';
import {
  fakeUser,
  timelinePage,
  wireTweet,
  wireUser,
  type FakeUser,
  type FakeXWebUserInput,
  type FakeXWebUserShape,
  type TimelineQuirks,
} from './fake-x-web-timeline.js';
import { listenOnLoopback } from './loopback.js';

export type { FakeXWebClientFacts, FakeXWebOperationEntry } from './fake-x-web-client.js';
export type { FakeXWebAccountInput } from './fake-x-web-sign-in.js';
export type {
  FakeUser,
  FakeXWebUserInput,
  FakeXWebUserShape,
  TimelineQuirks,
} from './fake-x-web-timeline.js';

const WINDOW_MS = 15 * 60_000;
/** Per-account limits of a 15-minute window, as the web client sees them. */
const DEFAULT_LIMITS: Record<XWebOperation, number> = {
  UserByScreenName: 95,
  UserTweets: 50,
  UserTweetsAndReplies: 50,
  UsersByRestIds: 150,
  TweetResultsByRestIds: 150,
};
const MAX_PAGE = 100;
const DEFAULT_PAGE = 20;
const TWITTER_EPOCH_MS = 1_288_834_974_657;

export interface FakeXWebRequest {
  method: string;
  path: string;
  operation: XWebOperation | null;
  /** The query id in a GraphQL path, or null. */
  queryId: string | null;
  /** The account whose session sent it (GraphQL), or null. */
  account: string | null;
  status: number;
  headers: http.IncomingHttpHeaders;
  variables: Variables | null;
  /** The x-client-transaction-id header, or null. */
  transactionId: string | null;
  /** The transaction id is one the fake accepts (of the current key, method, path and time). */
  valid: boolean;
}

/** An error X answers with status 200 (or `status`) and no data. */
export interface FakeXWebError {
  code: number;
  message: string;
  status?: number;
}

/** GraphQL variables of the operations. */
interface Variables {
  screen_name?: string;
  userId?: string;
  count?: number;
  cursor?: string;
  userIds?: string[];
  tweetIds?: string[];
}

interface Window {
  used: number;
  resetAt: number;
}

export interface FakeXWebServer {
  baseUrl: string;
  addAccount(input: FakeXWebAccountInput): void;
  /** A signed-in session of the account, as a browser's cookies (add by cookies). */
  issueSession(username: string): { authToken: string; ct0: string };
  /** Ends every session of the account (X answers 32 to them from now on). */
  expireSessions(username: string): void;
  lockAccount(username: string): void;
  suspendAccount(username: string): void;
  addUser(input: FakeXWebUserInput): FakeUser;
  addSourceTweets(userId: string, tweets: SourceTweet[]): void;
  /** The codes "emailed" to each account, newest last. */
  mailbox(username: string): string[];
  /** Per-account limit of an operation's window. */
  setLimit(operation: XWebOperation, limit: number): void;
  /** A new verification key and frames: ids made from an earlier page get 404 from now on. */
  rotateVerificationKey(): void;
  /** A new query id for every operation, in a new main bundle the page links. */
  rotateQueryIds(): void;
  /** Every operation requires this feature switch from now on (the page tells its value). */
  requireFeature(name: string, value: boolean): void;
  /** The operations as the fake serves them now. */
  operations(): Record<XWebOperation, FakeXWebOperationEntry>;
  /** The current web client's key, animation key, indices and script names. */
  webClient(): FakeXWebClientFacts;
  /**
   * The next `count` requests of any kind get Cloudflare's challenge page (403, or `status`);
   * 'always' until called with 0.
   */
  refuseWithHtml(count: number | 'always', status?: 403 | 503): void;
  /** Replaces the timelines' quirks ({} for none). */
  setTimelineQuirks(quirks: TimelineQuirks): void;
  /** The next call of the operation (that passes the checks) answers `{errors:[{code,message}]}`. */
  failNext(operation: XWebOperation, error: FakeXWebError): void;
  requests: FakeXWebRequest[];
  close(): Promise<void>;
}

export interface FakeXWebServerOptions {
  now?: () => number;
  /** Random query ids from the start, instead of Perch's shipped defaults. */
  freshQueryIds?: boolean;
  /** 'legacy': users as before 2025 (counts in legacy), for a client's fallback. */
  userShape?: FakeXWebUserShape;
}

const CHALLENGE_PAGE = [
  '<!DOCTYPE html><html><head><title>Just a moment...</title>',
  '<meta http-equiv="Content-Type" content="text/html; charset=UTF-8">',
  '<meta name="robots" content="noindex,nofollow"></head><body>',
  '<div class="main-wrapper" role="main"><div class="main-content"><h1>x.com</h1>',
  '<p>Verifying you are human. This may take a few seconds.</p></div></div>',
  '<div class="footer">Performance &amp; security by Cloudflare</div>',
  '</body></html>',
].join('');

export async function startFakeXWebServer(
  options: FakeXWebServerOptions = {},
): Promise<FakeXWebServer> {
  const now = options.now ?? Date.now;
  const shape = options.userShape ?? '2026';
  const client = createFakeWebClient({ freshQueryIds: options.freshQueryIds ?? false });
  const accounts = new Map<string, FakeAccount>();
  /** auth_token -> { username, ct0 } */
  const sessions = new Map<string, { username: string; ct0: string }>();
  const users = new Map<string, FakeUser>();
  const tweetsByUser = new Map<string, SourceTweet[]>();
  const tweetsById = new Map<string, { tweet: SourceTweet; user: FakeUser }>();
  const mail = new Map<string, string[]>();
  const limits: Record<XWebOperation, number> = { ...DEFAULT_LIMITS };
  /** `${username}:${operation}` -> window */
  const windows = new Map<string, Window>();
  const failures = new Map<XWebOperation, FakeXWebError[]>();
  const requests: FakeXWebRequest[] = [];
  let quirks: TimelineQuirks = {};
  let htmlRefusals: { left: number; status: 403 | 503 } = { left: 0, status: 403 };
  let nextUserId = 9_000_000_000n;
  /** Snowflake-like numbers of the fake's clock (X's epoch 2010-11-04): ids, sort indices. */
  let serial = BigInt(now() - TWITTER_EPOCH_MS) << 22n;
  let baseUrl = '';

  const token = (bytes: number) => randomBytes(bytes).toString('hex');
  const userById = (id: string) => [...users.values()].find((u) => u.id === id);

  function newSession(username: string) {
    const authToken = token(20);
    const ct0 = token(32);
    sessions.set(authToken, { username, ct0 });
    return { authToken, ct0 };
  }

  function cookiesOf(req: http.IncomingMessage): Record<string, string> {
    const jar: Record<string, string> = {};
    for (const part of (req.headers.cookie ?? '').split(';')) {
      const at = part.indexOf('=');
      if (at > 0) jar[part.slice(0, at).trim()] = part.slice(at + 1).trim();
    }
    return jar;
  }

  function send(
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string | string[]> = {},
  ) {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  function sendText(res: http.ServerResponse, status: number, type: string, body: string) {
    res.writeHead(status, { 'content-type': `${type}; charset=utf-8` });
    res.end(body);
  }

  /** X's answer to an unknown transaction id or query id: 404 and nothing else. */
  function sendEmpty404(res: http.ServerResponse) {
    res.writeHead(404, { 'content-length': '0' });
    res.end();
  }

  function sendChallenge(res: http.ServerResponse, status: number) {
    res.writeHead(status, {
      'content-type': 'text/html; charset=UTF-8',
      'cf-ray': `${token(8)}-AMS`,
      'cf-mitigated': 'challenge',
      server: 'cloudflare',
    });
    res.end(CHALLENGE_PAGE);
  }

  const signIn = createSignIn({ accounts, mail, newSession, now, send });

  // ------------------------------------------------------------------ GraphQL

  function take(username: string, operation: XWebOperation) {
    const key = `${username}:${operation}`;
    const at = now();
    let window = windows.get(key);
    if (!window || window.resetAt <= at) {
      window = { used: 0, resetAt: at + WINDOW_MS };
      windows.set(key, window);
    }
    const limit = limits[operation];
    const spent = window.used >= limit;
    if (!spent) window.used += 1;
    return {
      spent,
      headers: {
        'x-rate-limit-limit': String(limit),
        'x-rate-limit-remaining': String(Math.max(0, limit - window.used)),
        'x-rate-limit-reset': String(Math.ceil(window.resetAt / 1000)),
      },
    };
  }

  /** X's 400 for features the operation requires that were not sent (or sent as null). */
  function featuresError(missing: string[]) {
    const message = `The following features cannot be null: ${missing.join(', ')}`;
    const meta = { code: 336, kind: 'Validation', name: 'BadRequestError', source: 'Client' };
    return {
      errors: [
        {
          message,
          extensions: { name: meta.name, source: meta.source, code: meta.code, kind: meta.kind },
          ...meta,
        },
      ],
    };
  }

  function answer(operation: XWebOperation, variables: Variables): unknown {
    switch (operation) {
      case 'UserByScreenName': {
        const user = users.get(String(variables.screen_name ?? '').toLowerCase());
        return user ? { data: { user: { result: wireUser(user, shape) } } } : { data: {} };
      }
      case 'UserTweets':
      case 'UserTweetsAndReplies': {
        const user = userById(String(variables.userId));
        if (!user) return { data: { user: {} } };
        if (user.suspended) return { data: { user: { result: wireUser(user, shape) } } };
        if (user.protected) {
          return {
            data: { user: { result: { __typename: 'UserUnavailable', reason: 'Protected' } } },
          };
        }
        serial += 1_000n;
        const data = timelinePage({
          kind: operation,
          user,
          tweets: tweetsByUser.get(user.id) ?? [],
          count: Math.min(MAX_PAGE, Math.max(1, Number(variables.count) || DEFAULT_PAGE)),
          cursor: typeof variables.cursor === 'string' ? variables.cursor : undefined,
          quirks,
          shape,
          findTweet: (id) => tweetsById.get(id),
          findUser: userById,
          serial,
          now: now(),
        });
        return { data };
      }
      case 'UsersByRestIds': {
        const list = (variables.userIds ?? []).map((id) => {
          const user = userById(String(id));
          return user ? { result: wireUser(user, shape) } : {};
        });
        return { data: { users: list } };
      }
      case 'TweetResultsByRestIds': {
        const list = (variables.tweetIds ?? []).map((id) => {
          const found = tweetsById.get(String(id));
          return found ? { result: wireTweet(found.tweet, found.user, shape) } : {};
        });
        return { data: { tweetResult: list } };
      }
    }
  }

  function handleGraphql(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    operation: XWebOperation,
    log: FakeXWebRequest,
  ) {
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      send(res, status, body, headers);
    if (req.headers.authorization !== `Bearer ${X_WEB_BEARER}`) {
      return reply(401, { errors: [{ code: 215, message: 'Bad Authentication data.' }] });
    }
    const jar = cookiesOf(req);
    const session = jar.auth_token ? sessions.get(jar.auth_token) : undefined;
    if (!session) {
      return reply(401, { errors: [{ code: 32, message: 'Could not authenticate you.' }] });
    }
    if (jar.ct0 !== session.ct0 || req.headers['x-csrf-token'] !== session.ct0) {
      return reply(403, {
        errors: [
          { code: 353, message: 'This request requires a matching csrf cookie and header.' },
        ],
      });
    }
    log.account = session.username;
    const account = accounts.get(session.username);
    if (account?.locked) {
      return reply(403, {
        errors: [
          {
            code: 326,
            message:
              'Authorization: Denied by access control: To protect our users from spam and other malicious activity, this account is temporarily locked.',
          },
        ],
      });
    }
    if (account?.suspended) {
      return reply(403, {
        errors: [
          {
            code: 64,
            message: 'Your account is suspended and is not permitted to access this feature.',
          },
        ],
      });
    }
    let variables: Variables | null;
    let features: Record<string, unknown> | null;
    try {
      variables = JSON.parse(url.searchParams.get('variables') ?? 'null') as Variables | null;
      features = JSON.parse(url.searchParams.get('features') ?? 'null') as Record<
        string,
        unknown
      > | null;
    } catch {
      return reply(400, { errors: [{ code: 214, message: 'Bad JSON in variables or features.' }] });
    }
    log.variables = variables;
    if (!variables || typeof variables !== 'object') {
      return reply(400, { errors: [{ code: 214, message: 'Variables were not provided.' }] });
    }
    const required = client.operation(operation)?.featureSwitches ?? [];
    const missing = required.filter((name) => features?.[name] == null);
    if (missing.length > 0) return reply(400, featuresError(missing));
    const limit = take(session.username, operation);
    if (limit.spent) {
      return reply(429, { errors: [{ code: 88, message: 'Rate limit exceeded' }] }, limit.headers);
    }
    const failure = failures.get(operation)?.shift();
    if (failure) {
      const { code, message } = failure;
      return reply(failure.status ?? 200, { errors: [{ code, message }] }, limit.headers);
    }
    return reply(200, answer(operation, variables), limit.headers);
  }

  // ------------------------------------------------------------------ requests

  async function readBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (chunks.length === 0) return {};
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return {};
    }
  }

  /** Cloudflare stands before everything: it answers while refusals are left. */
  function takeRefusal(): number | null {
    if (htmlRefusals.left <= 0) return null;
    htmlRefusals.left -= 1;
    return htmlRefusals.status;
  }

  function logStatus(res: http.ServerResponse, log: FakeXWebRequest) {
    const original = res.writeHead.bind(res);
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      log.status = status;
      return (original as (...args: unknown[]) => http.ServerResponse)(status, ...rest);
    }) as typeof res.writeHead;
  }

  async function route(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    // The path as sent (what a client signs), without the query.
    const path = (req.url ?? '/').split('?')[0]!;
    const header = req.headers['x-client-transaction-id'];
    const transactionId = typeof header === 'string' ? header : null;
    const gql = /^\/i\/api\/graphql\/([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    const log: FakeXWebRequest = {
      method,
      path: url.pathname,
      operation: null,
      queryId: gql?.[1] ?? null,
      account: null,
      status: 0,
      headers: req.headers,
      variables: null,
      transactionId,
      valid: client.transactionIdValid(transactionId ?? undefined, method, path, now()),
    };
    requests.push(log);
    logStatus(res, log);
    const body = method === 'POST' ? await readBody(req) : {};
    const refusal = takeRefusal();
    if (refusal !== null) return sendChallenge(res, refusal);

    if (method === 'GET' && (url.pathname === '/' || url.pathname === '/home')) {
      return sendText(res, 200, 'text/html', client.page(baseUrl));
    }
    const asset = /^\/x-web\/assets\/([\w.-]+\.js)$/.exec(url.pathname);
    if (method === 'GET' && asset) {
      const script = client.asset(asset[1]!);
      if (script === null) return sendEmpty404(res);
      return sendText(res, 200, 'application/javascript', script);
    }
    const signingIn =
      method === 'POST' &&
      (url.pathname === '/1.1/guest/activate.json' || url.pathname === '/1.1/onboarding/task.json');
    if ((signingIn || gql) && !log.valid) return sendEmpty404(res);
    if (method === 'POST' && url.pathname === '/1.1/guest/activate.json') {
      return signIn.activate(req, res);
    }
    if (method === 'POST' && url.pathname === '/1.1/onboarding/task.json') {
      return signIn.task(req, res, url, body);
    }
    const operation = gql?.[2] as XWebOperation | undefined;
    if (method === 'GET' && gql && operation && X_WEB_OPERATIONS.includes(operation)) {
      log.operation = operation;
      if (client.operation(operation)?.queryId !== gql[1]) return sendEmpty404(res);
      return handleGraphql(req, res, url, operation, log);
    }
    if (gql) return sendEmpty404(res);
    send(res, 404, { errors: [{ code: 34, message: 'Sorry, that page does not exist.' }] });
  }

  const server = http.createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  baseUrl = await listenOnLoopback(server);

  return {
    baseUrl,
    requests,
    addAccount(input) {
      const username = input.username.toLowerCase();
      accounts.set(username, {
        ...input,
        username,
        locked: input.locked ?? false,
        suspended: input.suspended ?? false,
      });
    },
    issueSession(username) {
      return newSession(username.toLowerCase());
    },
    expireSessions(username) {
      for (const [key, session] of sessions) {
        if (session.username === username.toLowerCase()) sessions.delete(key);
      }
    },
    lockAccount(username) {
      accounts.get(username.toLowerCase())!.locked = true;
    },
    suspendAccount(username) {
      accounts.get(username.toLowerCase())!.suspended = true;
    },
    addUser(input) {
      const user = fakeUser(input, input.id ?? String(nextUserId++));
      users.set(input.username.toLowerCase(), user);
      return user;
    },
    addSourceTweets(userId, tweets) {
      const user = userById(userId);
      if (!user) throw new Error(`no user ${userId}`);
      const list = [...(tweetsByUser.get(userId) ?? []), ...tweets].sort((a, b) =>
        BigInt(b.id) > BigInt(a.id) ? 1 : -1,
      );
      tweetsByUser.set(userId, list);
      for (const tweet of tweets) tweetsById.set(tweet.id, { tweet, user });
    },
    mailbox(username) {
      return mail.get(username.toLowerCase()) ?? [];
    },
    setLimit(operation, limit) {
      limits[operation] = limit;
    },
    rotateVerificationKey: () => client.rotateVerificationKey(),
    rotateQueryIds: () => client.rotateQueryIds(),
    requireFeature: (name, value) => client.requireFeature(name, value),
    operations: () => client.operations(),
    webClient: () => client.facts(),
    refuseWithHtml(count, status = 403) {
      htmlRefusals = { left: count === 'always' ? Infinity : Math.max(0, count), status };
    },
    setTimelineQuirks(next) {
      quirks = { ...next };
    },
    failNext(operation, error) {
      failures.set(operation, [...(failures.get(operation) ?? []), { ...error }]);
    },
    close() {
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

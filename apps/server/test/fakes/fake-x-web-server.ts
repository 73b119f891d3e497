/**
 * A loopback fake of X's private web API and its sign-in flow (TWEET_SOURCE=x-web), on
 * 127.0.0.1:0 with node:http, following the public contracts read in twscrape, Nitter and
 * RSSHub (docs/decisions.md, "x-web source"):
 *
 * - POST /1.1/guest/activate.json -> { guest_token } (the web app's bearer token only).
 * - POST /1.1/onboarding/task.json?flow_name=login, then one POST per subtask with the previous
 *   flow_token: LoginJsInstrumentationSubtask, LoginEnterUserIdentifierSSO,
 *   (LoginEnterAlternateIdentifierSubtask), LoginEnterPassword, AccountDuplicationCheck,
 *   (LoginTwoFactorAuthChallenge: RFC 6238 of the account's secret), (LoginAcid: the code
 *   "emailed" to the account's mailbox), LoginSuccessSubtask; success sets auth_token and ct0.
 *   Wrong password or code: 400 with error 399; three wrong codes end the flow; a locked account
 *   answers 326 at the password.
 * - GET /i/api/graphql/:id/:operation for UserByScreenName, UserTweets, UsersByRestIds and
 *   TweetResultsByRestIds with the session cookies, ct0 echoed in x-csrf-token, the features
 *   (missing ones: 336), x-rate-limit-* headers per account and operation (spent: 429 and 88),
 *   326 for a locked account, 64 for a suspended one, 32 (401) for an ended session.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { XWebOperation } from '@perch/shared';
import type { SourceTweet } from '../../src/collector/sources/types.js';
import {
  X_WEB_BEARER,
  X_WEB_FEATURES,
  totpCode,
} from '../../src/collector/sources/x-web/x-web-http.js';

const WINDOW_MS = 15 * 60_000;
/** Per-account limits of a 15-minute window, as the web client sees them. */
const DEFAULT_LIMITS: Record<XWebOperation, number> = {
  UserByScreenName: 95,
  UserTweets: 50,
  UsersByRestIds: 150,
  TweetResultsByRestIds: 150,
};
const DEPTH_LIMIT = 3_200;
const RETWEET_TEXT_CHARS = 140;
const NOTE_VISIBLE_CHARS = 275;
const MAX_WRONG_CODES = 3;

export interface FakeXWebAccountInput {
  username: string;
  password: string;
  email: string;
  /** Base32: the sign-in asks LoginTwoFactorAuthChallenge. */
  totpSecret?: string;
  /** The sign-in asks for a code sent to the email (LoginAcid). */
  emailCode?: boolean;
  locked?: boolean;
  suspended?: boolean;
}

interface FakeAccount extends FakeXWebAccountInput {
  locked: boolean;
  suspended: boolean;
}

export interface FakeXWebUserInput {
  username: string;
  id?: string;
  name?: string;
  protected?: boolean;
  suspended?: boolean;
  followersCount?: number;
  followingCount?: number;
  tweetCount?: number;
  likeCount?: number;
}

interface FakeUser {
  id: string;
  username: string;
  name: string;
  protected: boolean;
  suspended: boolean;
  followersCount: number;
  followingCount: number;
  tweetCount: number;
  likeCount: number;
}

export interface FakeXWebRequest {
  method: string;
  path: string;
  operation: XWebOperation | null;
  /** The account whose session sent it (GraphQL), or null. */
  account: string | null;
  status: number;
  headers: http.IncomingHttpHeaders;
  variables: Variables | null;
}

interface Flow {
  guestToken: string;
  expect: string;
  username: string | null;
  wrongCodes: number;
  code: string | null;
}

/** A subtask input as the web client sends it (only the fields read here). */
interface SubtaskInput {
  subtask_id?: string;
  settings_list?: {
    setting_responses?: { response_data?: { text_data?: { result?: string } } }[];
  };
  enter_password?: { password?: string };
  enter_text?: { text?: string };
}

/** GraphQL variables of the four operations. */
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
  requests: FakeXWebRequest[];
  close(): Promise<void>;
}

export interface FakeXWebServerOptions {
  now?: () => number;
}

/** "Wed Oct 10 20:19:24 +0000 2018": X's created_at. */
function xDate(iso: string): string {
  const d = new Date(iso);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = [
    'Jan',
    'Feb',
    'Mar',
    'Apr',
    'May',
    'Jun',
    'Jul',
    'Aug',
    'Sep',
    'Oct',
    'Nov',
    'Dec',
  ];
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${pad(d.getUTCDate())} ${pad(
    d.getUTCHours(),
  )}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000 ${d.getUTCFullYear()}`;
}

const escapeText = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export async function startFakeXWebServer(
  options: FakeXWebServerOptions = {},
): Promise<FakeXWebServer> {
  const now = options.now ?? Date.now;
  const accounts = new Map<string, FakeAccount>();
  /** auth_token -> { username, ct0 } */
  const sessions = new Map<string, { username: string; ct0: string }>();
  const guestTokens = new Set<string>();
  const flows = new Map<string, Flow>();
  const users = new Map<string, FakeUser>();
  const tweetsByUser = new Map<string, SourceTweet[]>();
  const tweetsById = new Map<string, { tweet: SourceTweet; user: FakeUser }>();
  const mail = new Map<string, string[]>();
  const limits: Record<XWebOperation, number> = { ...DEFAULT_LIMITS };
  /** `${username}:${operation}` -> window */
  const windows = new Map<string, Window>();
  const requests: FakeXWebRequest[] = [];
  let nextUserId = 9_000_000_000n;

  const token = (bytes: number) => randomBytes(bytes).toString('hex');

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

  const flowError = (code: number, message: string) => ({ errors: [{ code, message }] });

  // ------------------------------------------------------------------ wire objects

  function wireUser(user: FakeUser) {
    if (user.suspended) {
      return { __typename: 'UserUnavailable', reason: 'Suspended', message: 'User is suspended' };
    }
    return {
      __typename: 'User',
      rest_id: user.id,
      core: { screen_name: user.username, name: user.name },
      privacy: { protected: user.protected },
      legacy: {
        screen_name: user.username,
        name: user.name,
        followers_count: user.followersCount,
        friends_count: user.followingCount,
        statuses_count: user.tweetCount,
        favourites_count: user.likeCount,
        protected: user.protected,
      },
    };
  }

  function entitiesOf(tweet: SourceTweet) {
    return {
      hashtags: tweet.hashtags.map((text) => ({ text, indices: [0, 0] })),
      urls: tweet.urls.map((expanded_url, n) => ({
        expanded_url,
        url: `https://t.co/${tweet.id.slice(-6)}${n}`,
      })),
    };
  }

  function mediaOf(tweet: SourceTweet) {
    return tweet.media.map((m) => ({
      type: m.type,
      media_url_https: (m.type === 'photo' ? m.url : m.previewUrl) ?? undefined,
    }));
  }

  function wireTweet(tweet: SourceTweet, user: FakeUser): Record<string, unknown> {
    const retweet = /^RT @([A-Za-z0-9_]{1,15}): ([\s\S]*)$/.exec(tweet.text);
    const isRetweet = tweet.referencedTypes.includes('retweeted') && retweet;
    const legacy: Record<string, unknown> = {
      created_at: xDate(tweet.createdAt),
      favorite_count: tweet.likeCount,
      retweet_count: tweet.retweetCount,
      reply_count: tweet.replyCount,
      quote_count: tweet.quoteCount,
      user_id_str: user.id,
      id_str: tweet.id,
      entities: isRetweet ? { hashtags: [], urls: [] } : entitiesOf(tweet),
    };
    if (tweet.lang !== null) legacy.lang = tweet.lang;
    if (tweet.conversationId !== null) legacy.conversation_id_str = tweet.conversationId;
    if (tweet.inReplyToUserId !== null) legacy.in_reply_to_user_id_str = tweet.inReplyToUserId;
    if (tweet.referencedTypes.includes('replied_to')) {
      legacy.in_reply_to_status_id_str = tweet.conversationId ?? '1';
    }
    if (tweet.referencedTypes.includes('quoted')) {
      legacy.is_quote_status = true;
      legacy.quoted_status_id_str = '1';
    }
    const result: Record<string, unknown> = {
      __typename: 'Tweet',
      rest_id: tweet.id,
      core: { user_results: { result: wireUser(user) } },
      legacy,
    };
    if (tweet.impressionCount !== null) {
      result.views = { count: String(tweet.impressionCount), state: 'EnabledWithCount' };
    }
    if (isRetweet) {
      // The retweet's own text is cut; the shared post carries the whole text, entities, media.
      const [, author, shared] = retweet;
      legacy.full_text = escapeText(tweet.text.slice(0, RETWEET_TEXT_CHARS - 1) + '…');
      const sharedId = String(BigInt(tweet.id) - 1_000_000n);
      legacy.retweeted_status_result = {
        result: {
          __typename: 'Tweet',
          rest_id: sharedId,
          core: {
            user_results: {
              result: {
                __typename: 'User',
                rest_id: '42',
                core: { screen_name: author, name: author },
                legacy: { screen_name: author, name: author },
              },
            },
          },
          legacy: {
            full_text: escapeText(shared!),
            created_at: xDate(tweet.createdAt),
            entities: entitiesOf(tweet),
            extended_entities: tweet.media.length > 0 ? { media: mediaOf(tweet) } : undefined,
          },
        },
      };
    } else {
      if (tweet.media.length > 0) legacy.extended_entities = { media: mediaOf(tweet) };
      if ([...tweet.text].length > 280) {
        legacy.full_text = escapeText([...tweet.text].slice(0, NOTE_VISIBLE_CHARS).join('') + '…');
        result.note_tweet = {
          note_tweet_results: {
            result: { text: escapeText(tweet.text), entity_set: entitiesOf(tweet) },
          },
        };
      } else {
        legacy.full_text = escapeText(tweet.text);
      }
    }
    return result;
  }

  // ------------------------------------------------------------------ sign-in flow

  function nextFlow(flow: Flow, expect: string, subtask: Record<string, unknown>) {
    const flowToken = `g;${token(8)}:-${now()}`;
    flows.set(flowToken, { ...flow, expect });
    return {
      flow_token: flowToken,
      status: 'success',
      subtasks: [{ subtask_id: expect, ...subtask }],
    };
  }

  function afterIdentity(flow: Flow, account: FakeAccount) {
    if (account.totpSecret) return nextFlow(flow, 'LoginTwoFactorAuthChallenge', {});
    return afterTwoFactor(flow, account);
  }

  function afterTwoFactor(flow: Flow, account: FakeAccount) {
    if (account.emailCode) {
      const code = String(100_000 + Math.floor(Math.random() * 900_000));
      mail.set(account.username, [...(mail.get(account.username) ?? []), code]);
      return nextFlow({ ...flow, code }, 'LoginAcid', {
        enter_text: {
          hint_text: 'Confirmation code',
          header: { primary_text: { text: 'Check your email' } },
        },
      });
    }
    return nextFlow(flow, 'LoginSuccessSubtask', {});
  }

  function handleTask(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    body: Record<string, unknown>,
  ) {
    const guest = String(req.headers['x-guest-token'] ?? '');
    if (!guestTokens.has(guest)) return send(res, 400, flowError(239, 'Bad guest token.'));
    if (url.searchParams.get('flow_name') === 'login') {
      return send(
        res,
        200,
        nextFlow(
          { guestToken: guest, expect: '', username: null, wrongCodes: 0, code: null },
          'LoginJsInstrumentationSubtask',
          {},
        ),
      );
    }
    const flowToken = String(body.flow_token ?? '');
    const flow = flows.get(flowToken);
    if (!flow || flow.guestToken !== guest) {
      return send(res, 400, flowError(366, 'flow_token is no longer valid.'));
    }
    const inputs = (body.subtask_inputs ?? []) as SubtaskInput[];
    const input = inputs[0];
    const account = flow.username ? accounts.get(flow.username) : undefined;
    if (flow.expect === 'LoginSuccessSubtask') {
      flows.delete(flowToken);
      const { authToken, ct0 } = newSession(flow.username!);
      return send(
        res,
        200,
        { flow_token: `g;done:-${now()}`, status: 'success', subtasks: [] },
        {
          'set-cookie': [
            `auth_token=${authToken}; Path=/; Domain=.x.com; Secure; HttpOnly`,
            `ct0=${ct0}; Path=/; Domain=.x.com; Secure`,
          ],
        },
      );
    }
    if (input?.subtask_id !== flow.expect) {
      return send(res, 400, flowError(366, `Expected ${flow.expect}.`));
    }
    flows.delete(flowToken);
    switch (flow.expect) {
      case 'LoginJsInstrumentationSubtask':
        return send(res, 200, nextFlow(flow, 'LoginEnterUserIdentifierSSO', {}));
      case 'LoginEnterUserIdentifierSSO': {
        const name = String(
          input.settings_list?.setting_responses?.[0]?.response_data?.text_data?.result ?? '',
        ).toLowerCase();
        if (!accounts.has(name)) {
          return send(res, 400, flowError(399, 'Sorry, we could not find your account.'));
        }
        return send(res, 200, nextFlow({ ...flow, username: name }, 'LoginEnterPassword', {}));
      }
      case 'LoginEnterPassword': {
        if (input.enter_password?.password !== account!.password) {
          return send(res, 400, flowError(399, 'Wrong password!'));
        }
        if (account!.locked) {
          return send(res, 400, flowError(326, 'Your account is locked. Unlock it on x.com.'));
        }
        if (account!.suspended) {
          return send(res, 400, flowError(64, 'Your account is suspended.'));
        }
        return send(res, 200, nextFlow(flow, 'AccountDuplicationCheck', {}));
      }
      case 'AccountDuplicationCheck':
        return send(res, 200, afterIdentity(flow, account!));
      case 'LoginTwoFactorAuthChallenge': {
        const code = String(input.enter_text?.text ?? '');
        const at = now();
        const valid = [-30_000, 0, 30_000].some(
          (d) => totpCode(account!.totpSecret!, at + d) === code,
        );
        if (!valid) {
          flows.set(flowToken, flow);
          return send(res, 400, flowError(399, 'Your code was incorrect. Please try again.'));
        }
        return send(res, 200, afterTwoFactor(flow, account!));
      }
      case 'LoginAcid': {
        if (String(input.enter_text?.text ?? '') !== flow.code) {
          const wrong = flow.wrongCodes + 1;
          if (wrong >= MAX_WRONG_CODES) {
            return send(res, 400, flowError(366, 'Too many attempts. Start the sign-in again.'));
          }
          flows.set(flowToken, { ...flow, wrongCodes: wrong });
          return send(res, 400, flowError(399, 'Incorrect. Please try again.'));
        }
        return send(res, 200, nextFlow(flow, 'LoginSuccessSubtask', {}));
      }
      default:
        return send(res, 400, flowError(366, 'Unknown step.'));
    }
  }

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

  function userTweets(user: FakeUser, count: number, cursor: string | undefined) {
    const all = (tweetsByUser.get(user.id) ?? []).slice(0, DEPTH_LIMIT);
    const offset = cursor
      ? Number(Buffer.from(cursor.replace(/^DAAB/, ''), 'base64url').toString())
      : 0;
    const page = all.slice(offset, offset + count);
    const entries: Record<string, unknown>[] = page.map((tweet) => ({
      entryId: `tweet-${tweet.id}`,
      content: {
        entryType: 'TimelineTimelineItem',
        itemContent: {
          itemType: 'TimelineTweet',
          tweet_results: { result: wireTweet(tweet, user) },
        },
      },
    }));
    const cursorOf = (n: number) => `DAAB${Buffer.from(String(n)).toString('base64url')}`;
    entries.push(
      { entryId: `cursor-top-${offset}`, content: { cursorType: 'Top', value: cursorOf(0) } },
      {
        entryId: `cursor-bottom-${offset}`,
        content: { cursorType: 'Bottom', value: cursorOf(offset + page.length) },
      },
    );
    const instructions: Record<string, unknown>[] = [{ type: 'TimelineClearCache' }];
    // An old post pinned on top, as profiles often have: out of order, the client leaves it out.
    const pinned = all[all.length - 1];
    if (!cursor && pinned) {
      instructions.push({
        type: 'TimelinePinEntry',
        entry: {
          entryId: `tweet-${pinned.id}`,
          content: { itemContent: { tweet_results: { result: wireTweet(pinned, user) } } },
        },
      });
    }
    instructions.push({ type: 'TimelineAddEntries', entries });
    return {
      data: {
        user: {
          result: {
            __typename: 'User',
            timeline_v2: { timeline: { instructions } },
          },
        },
      },
    };
  }

  function handleGraphql(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    operation: XWebOperation,
    log: FakeXWebRequest,
  ) {
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      log.status = status;
      send(res, status, body, headers);
    };
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
    let variables: Variables;
    let features: Record<string, unknown>;
    try {
      variables = JSON.parse(url.searchParams.get('variables') ?? 'null') as Variables;
      features = JSON.parse(url.searchParams.get('features') ?? 'null') as Record<string, unknown>;
    } catch {
      return reply(400, { errors: [{ code: 214, message: 'Bad JSON in variables or features.' }] });
    }
    log.variables = variables;
    const missing = Object.keys(X_WEB_FEATURES).filter(
      (key) => typeof features?.[key] !== 'boolean',
    );
    if (!variables || missing.length > 0) {
      return reply(400, {
        errors: [
          { code: 336, message: `The following features cannot be null: ${missing.join(', ')}` },
        ],
      });
    }
    const limit = take(session.username, operation);
    if (limit.spent) {
      return reply(429, { errors: [{ code: 88, message: 'Rate limit exceeded' }] }, limit.headers);
    }
    const ok = (body: unknown) => reply(200, body, limit.headers);
    switch (operation) {
      case 'UserByScreenName': {
        const user = users.get(String(variables.screen_name ?? '').toLowerCase());
        return ok(user ? { data: { user: { result: wireUser(user) } } } : { data: {} });
      }
      case 'UserTweets': {
        const user = [...users.values()].find((u) => u.id === String(variables.userId));
        if (!user) return ok({ data: { user: {} } });
        if (user.suspended) return ok({ data: { user: { result: wireUser(user) } } });
        if (user.protected) {
          return ok({
            data: { user: { result: { __typename: 'UserUnavailable', reason: 'Protected' } } },
          });
        }
        const count = Math.min(100, Math.max(1, Number(variables.count) || 20));
        return ok(userTweets(user, count, variables.cursor as string | undefined));
      }
      case 'UsersByRestIds': {
        const ids = (variables.userIds ?? []) as string[];
        const list = ids.map((id) => {
          const user = [...users.values()].find((u) => u.id === String(id));
          return user ? { result: wireUser(user) } : {};
        });
        return ok({ data: { users: list } });
      }
      case 'TweetResultsByRestIds': {
        const ids = (variables.tweetIds ?? []) as string[];
        const list = ids.map((id) => {
          const found = tweetsById.get(String(id));
          return found ? { result: wireTweet(found.tweet, found.user) } : {};
        });
        return ok({ data: { tweetResult: list } });
      }
    }
  }

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

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const log: FakeXWebRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        operation: null,
        account: null,
        status: 0,
        headers: req.headers,
        variables: null,
      };
      requests.push(log);
      const body = req.method === 'POST' ? await readBody(req) : {};
      if (req.method === 'POST' && url.pathname === '/1.1/guest/activate.json') {
        if (req.headers.authorization !== `Bearer ${X_WEB_BEARER}`) {
          log.status = 403;
          return send(res, 403, { errors: [{ code: 200, message: 'Forbidden.' }] });
        }
        const guestToken = String(BigInt(now()) * 1000n + BigInt(guestTokens.size));
        guestTokens.add(guestToken);
        log.status = 200;
        return send(res, 200, { guest_token: guestToken });
      }
      if (req.method === 'POST' && url.pathname === '/1.1/onboarding/task.json') {
        const original = res.writeHead.bind(res);
        res.writeHead = ((status: number, ...rest: unknown[]) => {
          log.status = status;
          return (original as (...args: unknown[]) => http.ServerResponse)(status, ...rest);
        }) as typeof res.writeHead;
        return handleTask(req, res, url, body);
      }
      const gql = /^\/i\/api\/graphql\/[^/]+\/([A-Za-z]+)$/.exec(url.pathname);
      const operation = gql?.[1] as XWebOperation | undefined;
      if (req.method === 'GET' && operation && operation in DEFAULT_LIMITS) {
        log.operation = operation;
        return handleGraphql(req, res, url, operation, log);
      }
      log.status = 404;
      send(res, 404, { errors: [{ code: 34, message: 'Sorry, that page does not exist.' }] });
    })().catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
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
      const user: FakeUser = {
        id: input.id ?? String(nextUserId++),
        username: input.username,
        name: input.name ?? input.username,
        protected: input.protected ?? false,
        suspended: input.suspended ?? false,
        followersCount: input.followersCount ?? 100,
        followingCount: input.followingCount ?? 50,
        tweetCount: input.tweetCount ?? 0,
        likeCount: input.likeCount ?? 0,
      };
      users.set(input.username.toLowerCase(), user);
      return user;
    },
    addSourceTweets(userId, tweets) {
      const user = [...users.values()].find((u) => u.id === userId);
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
    close() {
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * X's web sign-in flow (onboarding/task.json), as the x.com login page runs it: a guest token
 * from guest/activate.json, then `flow_name=login` and one POST per subtask X asks for, each
 * carrying the previous answer's flow_token. The subtasks handled are those twscrape's login.py
 * handles; any other one fails the sign-in with its id, for an admin to see.
 *
 * When X asks for the code it emailed (LoginAcid with a "confirmation code" hint), the flow
 * stops and its state (flow token, guest token, cookies) is returned, so that a code a super
 * admin types later continues that same flow, in any process.
 *
 * An HTML page instead of JSON (Cloudflare, a block page) refuses the server, not the account:
 * it is thrown as HtmlRefusal, for the pool to pause, never an outcome of the account.
 */
import { X_WEB_MESSAGES } from '@perch/shared';
import { HtmlRefusal, htmlRefusalOf } from './x-web-client-page.js';
import { absorbCookies, totpCode, webHeaders, type Cookies } from './x-web-http.js';
import type { TransactionIds } from './x-web-transaction.js';

export interface LoginCredentials {
  username: string;
  password: string;
  email: string;
  /** Base32 secret of the account's authenticator (LoginTwoFactorAuthChallenge), if any. */
  totpSecret: string | null;
}

/** A sign-in stopped at a step that needs a person: resumed with `continueLogin`. */
export interface PendingFlow {
  flowToken: string;
  guestToken: string;
  cookies: Cookies;
  /** The subtask waiting (LoginAcid). */
  step: string;
}

export type LoginOutcome =
  | { kind: 'signed_in'; cookies: Cookies }
  | { kind: 'awaiting_input'; flow: PendingFlow; hint: string | null }
  /**
   * `status`: what the account is now. FAILED waits for an admin; LOCKED and SUSPENDED are what
   * X said of the account. `retryable`: the same step may be tried again (a wrong code).
   */
  | {
      kind: 'failed';
      status: 'FAILED' | 'LOCKED' | 'SUSPENDED';
      reason: string;
      flow?: PendingFlow;
      retryable?: boolean;
    };

export interface LoginOptions {
  /** X_WEB_API_BASE_URL (https://api.x.com): guest/activate.json and onboarding/task.json. */
  apiBaseUrl: string;
  fetch?: typeof fetch;
  now?: () => number;
  timeoutMs?: number;
  /** x.com's client signs its sign-in requests too (x-client-transaction-id). */
  transactionIds?: TransactionIds;
}

interface Subtask {
  subtask_id: string;
  enter_text?: { hint_text?: string; header?: { primary_text?: { text?: string } } };
}
interface TaskAnswer {
  flow_token?: string;
  subtasks?: Subtask[];
  errors?: { code?: number; message?: string }[];
}

/** X error codes of the sign-in: the account itself is locked or suspended. */
const LOCKED_CODES = new Set([326]);
const SUSPENDED_CODES = new Set([64]);
/** The flow token is no longer valid (it expired, or too many tries): start again. */
const FLOW_ENDED = 366;
/** "Incorrect. Please try again." and friends: the same step can take another answer. */
const WRONG_INPUT_CODES = new Set([399]);
/**
 * Steps where X checks the browser (castle_token, JS instrumentation) before it takes the
 * identifier or the password: a refusal there may be one Perch cannot pass.
 */
const BROWSER_CHECKED = new Set([
  'login',
  'LoginJsInstrumentationSubtask',
  'LoginEnterUserIdentifierSSO',
  'LoginEnterPassword',
]);
/** Steps walked at most: a flow that goes on longer fails. */
const MAX_STEPS = 20;

class FlowError extends Error {
  constructor(readonly outcome: Extract<LoginOutcome, { kind: 'failed' }>) {
    super(outcome.reason);
  }
}

type Failed = Extract<LoginOutcome, { kind: 'failed' }>;

/** X's words for a refused step, and what it means for the account. */
function refusal(status: number, answer: TaskAnswer, step: string): Failed {
  const error = answer.errors?.[0];
  const words = error?.message ? `${error.message}` : `HTTP ${status}`;
  const code = error?.code;
  if (code !== undefined && LOCKED_CODES.has(code)) {
    return { kind: 'failed', status: 'LOCKED', reason: `X locked the account (${code}): ${words}` };
  }
  if (code !== undefined && SUSPENDED_CODES.has(code)) {
    return {
      kind: 'failed',
      status: 'SUSPENDED',
      reason: `X suspended the account (${code}): ${words}`,
    };
  }
  if (code === FLOW_ENDED) {
    return {
      kind: 'failed',
      status: 'FAILED',
      reason: `X ended the sign-in flow (${code}): ${words} Reset the account to sign in again.`,
    };
  }
  const retryable = code !== undefined && WRONG_INPUT_CODES.has(code);
  return {
    kind: 'failed',
    status: 'FAILED',
    reason: `X refused the step ${step}${code !== undefined ? ` (${code})` : ''}: ${words}${
      BROWSER_CHECKED.has(step) ? ` ${X_WEB_MESSAGES.browserChecks}` : ''
    }`,
    retryable,
  };
}

/** The sign-in cannot go on: X asks for `what`, which is not stored for the account. */
function lacking(what: string, id: string): never {
  throw new FlowError({
    kind: 'failed',
    status: 'FAILED',
    reason: `X asks for ${what} (${id}), which is not stored for this account.`,
  });
}

/** The input of a step that asks for something typed: the username, email, password or code. */
function typedAnswer(
  id: string,
  credentials: LoginCredentials | null,
  now: number,
): Record<string, unknown> {
  switch (id) {
    case 'LoginEnterUserIdentifierSSO': {
      if (!credentials) return lacking('the username', id);
      const identifier = { text_data: { result: credentials.username } };
      return {
        subtask_id: id,
        settings_list: {
          setting_responses: [{ key: 'user_identifier', response_data: identifier }],
          link: 'next_link',
        },
      };
    }
    case 'LoginEnterPassword':
      if (!credentials) return lacking('the password', id);
      return {
        subtask_id: id,
        enter_password: { password: credentials.password, link: 'next_link' },
      };
    case 'LoginTwoFactorAuthChallenge':
      if (!credentials?.totpSecret) return lacking('a two-factor code (add the TOTP secret)', id);
      return {
        subtask_id: id,
        enter_text: { text: totpCode(credentials.totpSecret, now), link: 'next_link' },
      };
    default:
      // LoginEnterAlternateIdentifierSubtask, and LoginAcid when it asks for the address.
      if (!credentials) return lacking('the email address', id);
      return { subtask_id: id, enter_text: { text: credentials.email, link: 'next_link' } };
  }
}

/** The input X wants for a subtask, or what stops the flow. */
function answerFor(
  subtask: Subtask,
  credentials: LoginCredentials | null,
  now: number,
): Record<string, unknown> | 'needs_code' | 'done' {
  const id = subtask.subtask_id;
  switch (id) {
    case 'LoginJsInstrumentationSubtask':
      return { subtask_id: id, js_instrumentation: { response: '{}', link: 'next_link' } };
    case 'LoginEnterUserIdentifierSSO':
    case 'LoginEnterAlternateIdentifierSubtask':
    case 'LoginEnterPassword':
    case 'LoginTwoFactorAuthChallenge':
      return typedAnswer(id, credentials, now);
    case 'AccountDuplicationCheck':
      return { subtask_id: id, check_logged_in_account: { link: 'AccountDuplicationCheck_false' } };
    case 'LoginAcid':
      // X asks either for the email address (to confirm it is you) or for the code it sent.
      if (subtask.enter_text?.hint_text?.toLowerCase().includes('code')) return 'needs_code';
      return typedAnswer(id, credentials, now);
    case 'LoginSuccessSubtask':
      return 'done';
    case 'DenyLoginSubtask':
      throw new FlowError({
        kind: 'failed',
        status: 'FAILED',
        reason: `X denied the sign-in (DenyLoginSubtask): sign in on x.com once to see why. ${X_WEB_MESSAGES.browserChecks}`,
      });
    default:
      throw new FlowError({
        kind: 'failed',
        status: 'FAILED',
        reason: `X asks for a sign-in step Perch does not know (${id}). ${X_WEB_MESSAGES.browserChecks}`,
      });
  }
}

async function run(work: () => Promise<LoginOutcome>): Promise<LoginOutcome> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof FlowError) return error.outcome;
    throw error;
  }
}

/** The sign-in flow against X_WEB_API_BASE_URL. */
class WebLoginFlow {
  private readonly base: string;
  private readonly doFetch: typeof fetch;
  private readonly now: () => number;
  private readonly timeoutMs: number;

  constructor(private readonly options: LoginOptions) {
    this.base = options.apiBaseUrl.replace(/\/+$/, '');
    this.doFetch = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Signs in from the start: guest token, then the login flow. */
  start(credentials: LoginCredentials): Promise<LoginOutcome> {
    return run(async () => {
      const jar: Cookies = {};
      const guest = await this.post('/1.1/guest/activate.json', jar, null, undefined);
      const guestToken = guest.json.guest_token;
      if (guest.status !== 200 || !guestToken) {
        throw new FlowError({
          kind: 'failed',
          status: 'FAILED',
          reason: `X gave no guest token (HTTP ${guest.status}); the server's IP may be blocked. ${X_WEB_MESSAGES.browserChecks}`,
        });
      }
      const begun = await this.post('/1.1/onboarding/task.json?flow_name=login', jar, guestToken, {
        input_flow_data: {
          flow_context: { debug_overrides: {}, start_location: { location: 'unknown' } },
        },
        subtask_versions: {},
      });
      if (begun.status !== 200) throw new FlowError(refusal(begun.status, begun.json, 'login'));
      return this.walk(begun.json, jar, guestToken, credentials);
    });
  }

  /**
   * Continues a flow that waits for the emailed code with `code`. A wrong code keeps the flow
   * waiting when X says the step can be tried again (the outcome then carries the flow).
   */
  continueWithCode(flow: PendingFlow, code: string): Promise<LoginOutcome> {
    return run(async () => {
      const jar: Cookies = { ...flow.cookies };
      const next = await this.post('/1.1/onboarding/task.json', jar, flow.guestToken, {
        flow_token: flow.flowToken,
        subtask_inputs: [
          { subtask_id: flow.step, enter_text: { text: code.trim(), link: 'next_link' } },
        ],
      });
      if (next.status !== 200) {
        const failed = refusal(next.status, next.json, flow.step);
        return failed.retryable ? { ...failed, flow } : failed;
      }
      return this.walk(next.json, jar, flow.guestToken, null);
    });
  }

  /**
   * Walks the flow from `answer` until it signs in, stops for a code, or fails. `credentials`
   * is null when continuing with a code (X asks for nothing else then, or the flow fails).
   */
  private async walk(
    first: TaskAnswer,
    jar: Cookies,
    guestToken: string,
    credentials: LoginCredentials | null,
  ): Promise<LoginOutcome> {
    let answer = first;
    let finishing = false;
    for (let steps = 0; steps < MAX_STEPS && !finishing; steps++) {
      const flowToken = answer.flow_token;
      if (!flowToken) break;
      const subtask = answer.subtasks?.[0];
      if (!subtask) {
        finishing = true;
        break;
      }
      const input = answerFor(subtask, credentials, this.now());
      if (input === 'needs_code') {
        return {
          kind: 'awaiting_input',
          flow: { flowToken, guestToken, cookies: { ...jar }, step: subtask.subtask_id },
          hint: subtask.enter_text?.header?.primary_text?.text ?? null,
        };
      }
      const next = await this.post('/1.1/onboarding/task.json', jar, guestToken, {
        flow_token: flowToken,
        subtask_inputs: input === 'done' ? [] : [input],
      });
      if (next.status !== 200) {
        throw new FlowError(refusal(next.status, next.json, subtask.subtask_id));
      }
      finishing = input === 'done';
      answer = next.json;
    }
    if (finishing && jar.auth_token && jar.ct0) return { kind: 'signed_in', cookies: { ...jar } };
    return {
      kind: 'failed',
      status: 'FAILED',
      reason: 'The sign-in ended without a session (no auth_token cookie).',
    };
  }

  /**
   * POSTs to X's sign-in API, cookies kept in `jar`. Throws HtmlRefusal for an HTML page and a
   * FlowError when X cannot be reached.
   */
  private async post(
    path: string,
    jar: Cookies,
    guestToken: string | null,
    body: unknown,
  ): Promise<{ status: number; json: TaskAnswer & { guest_token?: string } }> {
    const url = new URL(`${this.base}${path}`);
    let response: Response | null = null;
    let text = '';
    // A 404 with an empty body is X refusing the transaction id: once more with a new one.
    for (let tries = 0; tries < 2; tries++) {
      response = await this.send(url, jar, guestToken, body, tries > 0);
      absorbCookies(jar, response.headers);
      text = await response.text();
      const refused = htmlRefusalOf(response.status, response.headers, text);
      if (refused) throw refused;
      if (response.status !== 404 || text.trim() !== '') break;
    }
    if (!response) throw new Error('unreachable');
    let json: TaskAnswer & { guest_token?: string } = {};
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      // Not JSON (and not an HTML refusal): the status says enough.
    }
    return { status: response.status, json };
  }

  /** One request of the sign-in, signed with a transaction id (`renew`: a new one). */
  private async send(
    url: URL,
    jar: Cookies,
    guestToken: string | null,
    body: unknown,
    renew: boolean,
  ): Promise<Response> {
    const headers = webHeaders(jar, { 'content-type': 'application/json' });
    if (guestToken) headers.set('x-guest-token', guestToken);
    try {
      const ids = this.options.transactionIds;
      if (ids) {
        if (renew) ids.renew();
        headers.set('x-client-transaction-id', await ids.idFor('POST', url.pathname));
      }
      return await this.doFetch(url, {
        method: 'POST',
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      if (error instanceof HtmlRefusal) throw error;
      throw new FlowError({
        kind: 'failed',
        status: 'FAILED',
        reason: `X could not be reached (${(error as Error).message}).`,
      });
    }
  }
}

/** X's web sign-in flow: `start` with credentials, `continueWithCode` for a waiting one. */
export function createLoginFlow(options: LoginOptions): LoginFlow {
  return new WebLoginFlow(options);
}

export type LoginFlow = Pick<WebLoginFlow, 'start' | 'continueWithCode'>;

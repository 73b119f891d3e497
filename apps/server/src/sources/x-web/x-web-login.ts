/**
 * X's web sign-in flow (onboarding/task.json), as the x.com login page runs it: a guest token
 * from guest/activate.json, then `flow_name=login` and one POST per subtask X asks for, each
 * carrying the previous answer's flow_token. The subtasks handled are those twscrape's login.py
 * handles; any other one fails the sign-in with its id, for an admin to see.
 *
 * When X asks for the code it emailed (LoginAcid with a "confirmation code" hint), the flow
 * stops and its state (flow token, guest token, cookies) is returned, so that a code a super
 * admin types later continues that same flow, in any process.
 */
import { X_WEB_MESSAGES } from '@perch/shared';
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
/** Steps after which the flow is over and the cookies hold the session. */
const MAX_STEPS = 20;

class FlowError extends Error {
  constructor(readonly outcome: Extract<LoginOutcome, { kind: 'failed' }>) {
    super(outcome.reason);
  }
}

export function createLoginFlow(options: LoginOptions) {
  const base = options.apiBaseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function post(
    path: string,
    jar: Cookies,
    guestToken: string | null,
    body: unknown,
  ): Promise<{ status: number; json: TaskAnswer & { guest_token?: string } }> {
    const url = new URL(`${base}${path}`);
    let response: Response | null = null;
    let text = '';
    // A 404 with an empty body is X refusing the transaction id: once more with a new one.
    for (let tries = 0; tries < 2; tries++) {
      const headers = webHeaders(jar, { 'content-type': 'application/json' });
      if (guestToken) headers.set('x-guest-token', guestToken);
      try {
        if (options.transactionIds) {
          if (tries > 0) options.transactionIds.renew();
          headers.set(
            'x-client-transaction-id',
            await options.transactionIds.idFor('POST', url.pathname),
          );
        }
        response = await doFetch(url, {
          method: 'POST',
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new FlowError({
          kind: 'failed',
          status: 'FAILED',
          reason: `X could not be reached (${(error as Error).message}).`,
        });
      }
      absorbCookies(jar, response.headers);
      text = await response.text();
      if (response.status !== 404 || text.trim() !== '') break;
    }
    if (!response) throw new Error('unreachable');
    let json: TaskAnswer & { guest_token?: string } = {};
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      // An HTML error page: the status says enough.
    }
    return { status: response.status, json };
  }

  /** X's words for a refused step, and what it means for the account. */
  function refusal(
    status: number,
    answer: TaskAnswer,
    step: string,
  ): Extract<LoginOutcome, { kind: 'failed' }> {
    const error = answer.errors?.[0];
    const words = error?.message ? `${error.message}` : `HTTP ${status}`;
    const code = error?.code;
    if (code !== undefined && LOCKED_CODES.has(code)) {
      return {
        kind: 'failed',
        status: 'LOCKED',
        reason: `X locked the account (${code}): ${words}`,
      };
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
        BROWSER_CHECKED.has(step) && !retryable ? ` ${X_WEB_MESSAGES.browserChecks}` : ''
      }`,
      retryable,
    };
  }

  /** The input X wants for a subtask, or what stops the flow. */
  function answerFor(
    subtask: Subtask,
    credentials: LoginCredentials | null,
  ): Record<string, unknown> | 'needs_code' | 'done' {
    const id = subtask.subtask_id;
    const need = (what: string): never => {
      throw new FlowError({
        kind: 'failed',
        status: 'FAILED',
        reason: `X asks for ${what} (${id}), which is not stored for this account.`,
      });
    };
    switch (id) {
      case 'LoginJsInstrumentationSubtask':
        return { subtask_id: id, js_instrumentation: { response: '{}', link: 'next_link' } };
      case 'LoginEnterUserIdentifierSSO':
        if (!credentials) return need('the username');
        return {
          subtask_id: id,
          settings_list: {
            setting_responses: [
              {
                key: 'user_identifier',
                response_data: { text_data: { result: credentials.username } },
              },
            ],
            link: 'next_link',
          },
        };
      case 'LoginEnterAlternateIdentifierSubtask':
        if (!credentials) return need('the email address');
        return { subtask_id: id, enter_text: { text: credentials.email, link: 'next_link' } };
      case 'LoginEnterPassword':
        if (!credentials) return need('the password');
        return {
          subtask_id: id,
          enter_password: { password: credentials.password, link: 'next_link' },
        };
      case 'AccountDuplicationCheck':
        return {
          subtask_id: id,
          check_logged_in_account: { link: 'AccountDuplicationCheck_false' },
        };
      case 'LoginTwoFactorAuthChallenge':
        if (!credentials?.totpSecret) return need('a two-factor code (add the TOTP secret)');
        return {
          subtask_id: id,
          enter_text: { text: totpCode(credentials.totpSecret, now()), link: 'next_link' },
        };
      case 'LoginAcid': {
        const hint = subtask.enter_text?.hint_text?.toLowerCase() ?? '';
        // X asks either for the email address (to confirm it is you) or for the code it sent.
        if (hint.includes('code')) return 'needs_code';
        if (!credentials) return need('the email address');
        return { subtask_id: id, enter_text: { text: credentials.email, link: 'next_link' } };
      }
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

  /**
   * Walks the flow from `answer` until it signs in, stops for a code, or fails. `credentials`
   * is null when continuing with a code (X asks for nothing else then, or the flow fails).
   */
  async function walk(
    first: TaskAnswer,
    jar: Cookies,
    guestToken: string,
    credentials: LoginCredentials | null,
  ): Promise<LoginOutcome> {
    let answer = first;
    let finishing = false;
    for (let steps = 0; steps < MAX_STEPS; steps++) {
      const flowToken = answer.flow_token;
      if (!flowToken) break;
      const subtask = answer.subtasks?.[0];
      if (!subtask) {
        finishing = true;
        break;
      }
      const input = answerFor(subtask, credentials);
      if (input === 'needs_code') {
        return {
          kind: 'awaiting_input',
          flow: { flowToken, guestToken, cookies: { ...jar }, step: subtask.subtask_id },
          hint: subtask.enter_text?.header?.primary_text?.text ?? null,
        };
      }
      const inputs = input === 'done' ? [] : [input];
      const next = await post('/1.1/onboarding/task.json', jar, guestToken, {
        flow_token: flowToken,
        subtask_inputs: inputs,
      });
      if (next.status !== 200)
        throw new FlowError(refusal(next.status, next.json, subtask.subtask_id));
      if (input === 'done') {
        finishing = true;
        break;
      }
      answer = next.json;
    }
    if (finishing && jar.auth_token && jar.ct0) return { kind: 'signed_in', cookies: { ...jar } };
    return {
      kind: 'failed',
      status: 'FAILED',
      reason: 'The sign-in ended without a session (no auth_token cookie).',
    };
  }

  async function run(work: () => Promise<LoginOutcome>): Promise<LoginOutcome> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof FlowError) return error.outcome;
      throw error;
    }
  }

  return {
    /** Signs in from the start: guest token, then the login flow. */
    start(credentials: LoginCredentials): Promise<LoginOutcome> {
      return run(async () => {
        const jar: Cookies = {};
        const guest = await post('/1.1/guest/activate.json', jar, null, undefined);
        const guestToken = guest.json.guest_token;
        if (guest.status !== 200 || !guestToken) {
          throw new FlowError({
            kind: 'failed',
            status: 'FAILED',
            reason: `X gave no guest token (HTTP ${guest.status}); the server's IP may be blocked. ${X_WEB_MESSAGES.browserChecks}`,
          });
        }
        const begun = await post('/1.1/onboarding/task.json?flow_name=login', jar, guestToken, {
          input_flow_data: {
            flow_context: { debug_overrides: {}, start_location: { location: 'unknown' } },
          },
          subtask_versions: {},
        });
        if (begun.status !== 200) throw new FlowError(refusal(begun.status, begun.json, 'login'));
        return walk(begun.json, jar, guestToken, credentials);
      });
    },

    /**
     * Continues a flow that waits for the emailed code with `code`. A wrong code keeps the flow
     * waiting when X says the step can be tried again (the outcome then carries the flow).
     */
    continueWithCode(flow: PendingFlow, code: string): Promise<LoginOutcome> {
      return run(async () => {
        const jar: Cookies = { ...flow.cookies };
        const next = await post('/1.1/onboarding/task.json', jar, flow.guestToken, {
          flow_token: flow.flowToken,
          subtask_inputs: [
            { subtask_id: flow.step, enter_text: { text: code.trim(), link: 'next_link' } },
          ],
        });
        if (next.status !== 200) {
          const failed = refusal(next.status, next.json, flow.step);
          return failed.retryable ? { ...failed, flow } : failed;
        }
        return walk(next.json, jar, flow.guestToken, null);
      });
    },
  };
}

export type LoginFlow = ReturnType<typeof createLoginFlow>;

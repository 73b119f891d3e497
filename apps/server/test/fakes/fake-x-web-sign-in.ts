/**
 * The web sign-in flow of the loopback fake of X's web API (twscrape login.py, Nitter):
 *
 * - POST /1.1/guest/activate.json -> { guest_token } (the web app's bearer token only).
 * - POST /1.1/onboarding/task.json?flow_name=login, then one POST per subtask with the previous
 *   flow_token: LoginJsInstrumentationSubtask, LoginEnterUserIdentifierSSO, LoginEnterPassword,
 *   AccountDuplicationCheck, (LoginTwoFactorAuthChallenge: RFC 6238 of the account's secret),
 *   (LoginAcid: the code "emailed" to the account's mailbox), LoginSuccessSubtask; success sets
 *   auth_token and ct0. Wrong password or code: 400 with error 399; three wrong codes end the
 *   flow; a locked account answers 326 at the password, a suspended one 64.
 *
 * The transaction id and Cloudflare stand in front of it (fake-x-web-server.ts).
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { X_WEB_BEARER, totpCode } from '../../src/sources/x-web/x-web-http.js';

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

export interface FakeAccount extends FakeXWebAccountInput {
  locked: boolean;
  suspended: boolean;
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

type Send = (
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string | string[]>,
) => void;

export interface SignInDeps {
  accounts: Map<string, FakeAccount>;
  /** The codes "emailed" to each account, newest last. */
  mail: Map<string, string[]>;
  newSession(username: string): { authToken: string; ct0: string };
  now(): number;
  send: Send;
}

export interface SignIn {
  activate(req: http.IncomingMessage, res: http.ServerResponse): void;
  task(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    body: Record<string, unknown>,
  ): void;
}

const flowError = (code: number, message: string) => ({ errors: [{ code, message }] });

export function createSignIn({ accounts, mail, newSession, now, send }: SignInDeps): SignIn {
  const guestTokens = new Set<string>();
  const flows = new Map<string, Flow>();

  function nextFlow(flow: Flow, expect: string, subtask: Record<string, unknown>) {
    const flowToken = `g;${randomBytes(8).toString('hex')}:-${now()}`;
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

  function task(
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

  function activate(req: http.IncomingMessage, res: http.ServerResponse) {
    if (req.headers.authorization !== `Bearer ${X_WEB_BEARER}`) {
      return send(res, 403, { errors: [{ code: 200, message: 'Forbidden.' }] });
    }
    const guestToken = String(BigInt(now()) * 1000n + BigInt(guestTokens.size));
    guestTokens.add(guestToken);
    send(res, 200, { guest_token: guestToken });
  }

  return { activate, task };
}

/**
 * The X endpoints of a user connection (docs/spec-notes.md, X API): the OAuth 2.0 token
 * endpoint (code exchange, refresh), revocation, and GET /2/users/me with the user's token.
 * Raw fetch against X_API_BASE_URL, so tests point it at the loopback fake.
 */
import { z } from 'zod';

export interface XTokenSet {
  accessToken: string;
  /** Only issued when offline.access was granted. */
  refreshToken: string | null;
  /** Seconds the access token lives (X: 7200), when X says. */
  expiresIn: number | null;
  scope: string | null;
}

/** The account behind a user token. */
export interface XAccountProfile {
  id: string;
  username: string;
  name: string | null;
}

export interface XOAuthClient {
  /** Trades an authorization code (30 s valid at X) for tokens. */
  exchangeCode(input: {
    code: string;
    codeVerifier: string;
    redirectUri: string;
  }): Promise<XTokenSet>;
  /** New tokens for a refresh token; X rotates the refresh token too. */
  refresh(refreshToken: string): Promise<XTokenSet>;
  revoke(token: string, hint: 'access_token' | 'refresh_token'): Promise<void>;
  me(accessToken: string): Promise<XAccountProfile>;
}

export type XOAuthErrorKind =
  /** X refused the request (4xx): a bad or used code, a revoked token, a wrong client. */
  | 'rejected'
  /** X could not be reached, timed out, answered 5xx or 429: try again later. */
  | 'unavailable'
  /** X answered 2xx with a body we cannot read. */
  | 'invalid_response';

export class XOAuthError extends Error {
  constructor(
    readonly kind: XOAuthErrorKind,
    message: string,
    /** HTTP status, when X answered. */
    readonly status: number | null = null,
    /** The OAuth `error` (invalid_request, invalid_grant, ...) or problem type of X's body. */
    readonly error: string | null = null,
  ) {
    super(message);
    this.name = 'XOAuthError';
  }

  /** X no longer accepts the grant: the refresh token was revoked, used or expired. */
  get grantRejected(): boolean {
    return (
      this.kind === 'rejected' &&
      this.status === 400 &&
      (this.error === 'invalid_grant' || this.error === 'invalid_request')
    );
  }
}

export interface XOAuthClientOptions {
  /** X_API_BASE_URL (a trailing slash is tolerated). */
  baseUrl: string;
  clientId: string;
  /** Confidential clients authenticate with HTTP Basic; public clients send client_id. */
  clientSecret?: string;
  /** Per request. Default 10 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  expires_in: z.number().positive().optional(),
  scope: z.string().optional(),
});
const meResponseSchema = z.object({
  data: z.object({
    id: z.string().min(1),
    username: z.string().min(1),
    name: z.string().optional(),
  }),
});
/** OAuth errors ({error, error_description}) and X's problem bodies ({title, detail, type}). */
const errorBodySchema = z
  .object({
    error: z.string().optional(),
    error_description: z.string().optional(),
    title: z.string().optional(),
    detail: z.string().optional(),
    type: z.string().optional(),
  })
  .partial();

/** What every request to X needs: where, how long, and the client's credentials. */
interface Transport {
  base: string;
  timeoutMs: number;
  fetch: typeof fetch;
  clientId: string;
  /** HTTP Basic credentials of a confidential client; null for a public client. */
  basic: string | null;
}

function transportOf(options: XOAuthClientOptions): Transport {
  return {
    base: options.baseUrl.replace(/\/+$/, ''),
    timeoutMs: options.timeoutMs ?? 10_000,
    fetch: options.fetch ?? fetch,
    clientId: options.clientId,
    basic: options.clientSecret
      ? `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`
      : null,
  };
}

/** X's answer as JSON, or null when it is empty or not JSON. */
function parseBody(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null;
  }
}

/** The error of a non-2xx answer: X's OAuth error or problem type, and its description. */
function answerError(status: number, body: unknown, what: string): XOAuthError {
  const parsed = errorBodySchema.safeParse(body);
  const detail = parsed.success ? parsed.data : {};
  const code = detail.error ?? detail.type?.split('/').pop() ?? null;
  const description = detail.error_description ?? detail.detail ?? detail.title ?? '';
  const kind = status >= 500 || status === 429 ? 'unavailable' : 'rejected';
  return new XOAuthError(
    kind,
    `${what}: X answered ${status}${code ? ` ${code}` : ''}${description ? `: ${description}` : ''}`,
    status,
    code,
  );
}

/** One request to X: the parsed body of a 2xx answer; XOAuthError otherwise. */
async function call(
  transport: Transport,
  path: string,
  init: RequestInit,
  what: string,
): Promise<unknown> {
  let response: Response;
  try {
    response = await transport.fetch(`${transport.base}${path}`, {
      ...init,
      signal: AbortSignal.timeout(transport.timeoutMs),
    });
  } catch (error) {
    throw new XOAuthError('unavailable', `${what}: X could not be reached (${String(error)})`);
  }
  const body = parseBody(await response.text().catch(() => ''));
  if (response.ok) return body;
  throw answerError(response.status, body, what);
}

/** POST a form to the token or revoke endpoint with the client's authentication. */
function postForm(
  transport: Transport,
  path: string,
  fields: Record<string, string>,
  what: string,
): Promise<unknown> {
  const form = new URLSearchParams(fields);
  if (!transport.basic) form.set('client_id', transport.clientId);
  return call(
    transport,
    path,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...(transport.basic ? { authorization: transport.basic } : {}),
      },
      body: form.toString(),
    },
    what,
  );
}

function tokenSet(body: unknown, what: string): XTokenSet {
  const parsed = tokenResponseSchema.safeParse(body);
  if (!parsed.success) throw new XOAuthError('invalid_response', `${what}: unreadable answer`);
  return {
    accessToken: parsed.data.access_token,
    refreshToken: parsed.data.refresh_token ?? null,
    expiresIn: parsed.data.expires_in ?? null,
    scope: parsed.data.scope ?? null,
  };
}

export function createXOAuthClient(options: XOAuthClientOptions): XOAuthClient {
  const transport = transportOf(options);
  /** A grant at the token endpoint: new tokens. */
  const grant = async (fields: Record<string, string>, what: string) =>
    tokenSet(await postForm(transport, '/2/oauth2/token', fields, what), what);

  return {
    exchangeCode: ({ code, codeVerifier, redirectUri }) =>
      grant(
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          code_verifier: codeVerifier,
        },
        'code exchange',
      ),

    refresh: (refreshToken) =>
      grant({ grant_type: 'refresh_token', refresh_token: refreshToken }, 'token refresh'),

    async revoke(token, hint) {
      // X's documented revoke form carries client_id even for confidential clients.
      await postForm(
        transport,
        '/2/oauth2/revoke',
        { token, token_type_hint: hint, client_id: options.clientId },
        'revoke',
      );
    },

    async me(accessToken) {
      const body = await call(
        transport,
        '/2/users/me',
        { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } },
        'users/me',
      );
      const parsed = meResponseSchema.safeParse(body);
      if (!parsed.success) throw new XOAuthError('invalid_response', 'users/me: unreadable answer');
      const { id, username, name } = parsed.data.data;
      return { id, username, name: name ?? null };
    },
  };
}

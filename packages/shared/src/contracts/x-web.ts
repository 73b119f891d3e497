/**
 * The x-web source's pool of collector accounts (TWEET_SOURCE=x-web): what the Admin page and
 * the admin API show and take. Secrets go in and never come back out.
 */
import { z } from 'zod';

export const X_WEB_ACCOUNT_STATUSES = [
  'ACTIVE',
  'NEEDS_LOGIN',
  'AWAITING_INPUT',
  'FAILED',
  'LOCKED',
  'SUSPENDED',
  'EXPIRED',
] as const;
export type XWebAccountStatusName = (typeof X_WEB_ACCOUNT_STATUSES)[number];

/** The GraphQL operations the x-web source uses, each with its own rate limit per account. */
export const X_WEB_OPERATIONS = [
  'UserByScreenName',
  'UserTweetsAndReplies',
  'UserTweets',
  'UsersByRestIds',
  'TweetResultsByRestIds',
] as const;
export type XWebOperation = (typeof X_WEB_OPERATIONS)[number];

export const X_WEB_MESSAGES = {
  usernameRequired: 'Enter the X username of the account (letters, digits and _, up to 15).',
  authTokenRequired: 'Enter the auth_token cookie (40 hexadecimal characters).',
  ct0Required: 'Enter the ct0 cookie (32 to 160 letters and digits).',
  passwordRequired: 'Enter the password of the account.',
  emailRequired: 'Enter the email address of the account (X sends its codes there).',
  totpInvalid: 'The TOTP secret is the base32 key X showed when two-factor was set up.',
  methodRequired: 'Add the account by cookies or by username and password.',
  accountIdRequired: 'Account ID is required',
  accountExists: (username: string) => `@${username} is already in the pool.`,
  accountNotFound: 'No such collector account.',
  accountAdded: (username: string) => `@${username} added to the collector pool.`,
  accountRemoved: (username: string) => `@${username} removed from the collector pool.`,
  accountReset: (username: string) => `@${username} will be used again (it signs in when needed).`,
  accountResetNotNeeded: (username: string) => `@${username} is not out of the pool.`,
  notXWeb: 'The collector pool is used only with TWEET_SOURCE=x-web.',
  codeAccepted: (username: string) => `@${username} is signed in. Collection uses it again.`,
  codeRejected: (username: string, reason: string) =>
    `X did not accept the code for @${username}: ${reason} Enter the newest code from the email.`,
  signInFailed: (username: string, reason: string) =>
    `The sign-in of @${username} failed: ${reason} Reset the account on the Admin page to try again.`,
  noAccountAwaiting: 'No collector account is waiting for a verification code.',
  /** The Admin page's banner while X answers web requests with HTML (Cloudflare) pages. */
  poolPaused: 'X is refusing web requests from this server',
  /** Why a password sign-in may fail although the password is right. */
  browserChecks:
    'X may require browser-only checks (castle_token) for a password sign-in, which Perch cannot pass: add the account by cookies instead.',
  operationNotFound: 'No such X web operation.',
  queryIdInvalid:
    'The query id is 10 to 40 letters, digits, _ or - (as in /i/api/graphql/<id>/<operation>).',
  switchesInvalid:
    'Features and field toggles are a JSON object of names (letters, digits, _) to true or false.',
  operationPinned: (name: string) =>
    `${name} is pinned: Perch uses your values until you unpin it.`,
  operationUnpinned: (name: string) =>
    `${name} is no longer pinned: Perch uses what x.com's client uses.`,
  operationNotPinned: (name: string) => `${name} is not pinned.`,
  operationsRefreshed: (changed: number) =>
    changed === 0
      ? "Checked x.com's client: the operations in use are current."
      : `Checked x.com's client: ${changed} operation${changed === 1 ? '' : 's'} changed.`,
  /** The challenge panel's words for an x-web account waiting for an emailed code. */
  emailCodeDetails: (username: string, hint: string | null) =>
    `X sent a confirmation code to the email address of @${username}${
      hint ? ` (${hint})` : ''
    }. Enter it to continue its sign-in.`,
} as const;

const USERNAME = /^@?[A-Za-z0-9_]{1,15}$/;
const BASE32 = /^[A-Z2-7]+=*$/;

const username = z
  .string({ error: X_WEB_MESSAGES.usernameRequired })
  .trim()
  .regex(USERNAME, X_WEB_MESSAGES.usernameRequired)
  .transform((value) => value.replace(/^@/, '').toLowerCase());

/** Add by cookies (auth_token and ct0 of a signed-in browser: the most stable way). */
export const addXWebAccountByCookiesSchema = z.object({
  method: z.literal('cookies'),
  username,
  auth_token: z
    .string({ error: X_WEB_MESSAGES.authTokenRequired })
    .trim()
    .regex(/^[0-9a-fA-F]{40}$/, X_WEB_MESSAGES.authTokenRequired),
  ct0: z
    .string({ error: X_WEB_MESSAGES.ct0Required })
    .trim()
    .regex(/^[0-9a-zA-Z]{32,160}$/, X_WEB_MESSAGES.ct0Required),
});

/** Add by credentials: the source signs in with X's web login flow. */
export const addXWebAccountByCredentialsSchema = z.object({
  method: z.literal('credentials'),
  username,
  password: z
    .string({ error: X_WEB_MESSAGES.passwordRequired })
    .min(1, X_WEB_MESSAGES.passwordRequired)
    .max(256, X_WEB_MESSAGES.passwordRequired),
  email: z
    .string({ error: X_WEB_MESSAGES.emailRequired })
    .trim()
    .max(254, X_WEB_MESSAGES.emailRequired)
    .pipe(z.email({ error: X_WEB_MESSAGES.emailRequired })),
  totp_secret: z
    .string({ error: X_WEB_MESSAGES.totpInvalid })
    .transform((value) => value.replace(/[\s-]+/g, '').toUpperCase())
    .refine((value) => value === '' || (value.length >= 16 && BASE32.test(value)), {
      error: X_WEB_MESSAGES.totpInvalid,
    })
    .transform((value) => (value === '' ? null : value))
    .nullish(),
});

export const addXWebAccountRequestSchema = z.discriminatedUnion(
  'method',
  [addXWebAccountByCookiesSchema, addXWebAccountByCredentialsSchema],
  { error: X_WEB_MESSAGES.methodRequired },
);
export type AddXWebAccountRequest = z.input<typeof addXWebAccountRequestSchema>;
export type AddXWebAccount = z.output<typeof addXWebAccountRequestSchema>;

export const xWebAccountIdParamSchema = z.object({
  id: z.coerce
    .number({ error: X_WEB_MESSAGES.accountIdRequired })
    .int(X_WEB_MESSAGES.accountIdRequired)
    .positive(X_WEB_MESSAGES.accountIdRequired)
    .max(2_147_483_647, X_WEB_MESSAGES.accountIdRequired),
});

export const xWebLimitSchema = z.object({
  operation: z.enum(X_WEB_OPERATIONS),
  limit: z.number().int().nullable(),
  remaining: z.number().int().nullable(),
  /** When the window resets (ISO-8601); null when X never told. */
  reset_at: z.string().nullable(),
});
export type XWebLimit = z.infer<typeof xWebLimitSchema>;

export const xWebAccountSchema = z.object({
  id: z.number().int(),
  username: z.string(),
  auth_method: z.enum(['cookies', 'credentials']),
  has_totp: z.boolean(),
  status: z.enum(X_WEB_ACCOUNT_STATUSES),
  /** Why the account is out, in X's words; null while it is usable. */
  status_reason: z.string().nullable(),
  /** The sign-in step that waits for input (LoginAcid) and since when. */
  challenge_step: z.string().nullable(),
  challenge_since: z.string().nullable(),
  /** Each operation's limit as X last told it (the window may have reset since). */
  limits: z.array(xWebLimitSchema),
  /** The account rests until this instant (some operation's limit is spent); null otherwise. */
  resting_until: z.string().nullable(),
  last_error: z.string().nullable(),
  last_error_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  created_at: z.string(),
});
export type XWebAccount = z.infer<typeof xWebAccountSchema>;

/** x-web's pool as a whole: paused while X answers web requests with HTML pages. */
export const xWebPoolStateSchema = z.object({
  /** Requests wait until this instant (ISO-8601); null when the pool is not paused. */
  paused_until: z.string().nullable(),
  /** What X answered (e.g. 'Cloudflare 403: Just a moment...'); null when not paused. */
  pause_reason: z.string().nullable(),
  /** When the current run of refusals began; null when not paused. */
  paused_since: z.string().nullable(),
});
export type XWebPoolState = z.infer<typeof xWebPoolStateSchema>;

export const xWebAccountsResponseSchema = z.object({
  /** True when TWEET_SOURCE=x-web (otherwise the pool is kept but unused). */
  in_use: z.boolean(),
  accounts: z.array(xWebAccountSchema),
  pool: xWebPoolStateSchema,
});
export type XWebAccounts = z.infer<typeof xWebAccountsResponseSchema>;
export const xWebAccountResponseSchema = z.object({ account: xWebAccountSchema });

export const X_WEB_OPERATION_SOURCES = ['default', 'bundle', 'file', 'admin'] as const;
export type XWebOperationSource = (typeof X_WEB_OPERATION_SOURCES)[number];

const switchName = /^[A-Za-z0-9_]{1,120}$/;
const switches = z
  .record(z.string(), z.boolean({ error: X_WEB_MESSAGES.switchesInvalid }), {
    error: X_WEB_MESSAGES.switchesInvalid,
  })
  .refine((value) => Object.keys(value).every((key) => switchName.test(key)), {
    error: X_WEB_MESSAGES.switchesInvalid,
  })
  .refine((value) => Object.keys(value).length <= 300, { error: X_WEB_MESSAGES.switchesInvalid });

/** One GraphQL operation as the x-web source calls it now, and where its values came from. */
export const xWebOperationSchema = z.object({
  name: z.enum(X_WEB_OPERATIONS),
  query_id: z.string(),
  features: z.record(z.string(), z.boolean()),
  field_toggles: z.record(z.string(), z.boolean()),
  /**
   * default: the last-known values shipped with Perch; bundle: read from x.com's client;
   * file: X_WEB_OPERATIONS_FILE; admin: pinned on the Admin page.
   */
  source: z.enum(X_WEB_OPERATION_SOURCES),
  /** When x.com's client last showed these values (bundle), or null. */
  seen_at: z.string().nullable(),
  /** The values last read from x.com's client, when a pin or the file overrides them. */
  bundle_query_id: z.string().nullable(),
});
export type XWebOperationView = z.infer<typeof xWebOperationSchema>;

export const xWebOperationsResponseSchema = z.object({
  operations: z.array(xWebOperationSchema),
  /** The last look at x.com's client (successful or not), and the last that succeeded. */
  checked_at: z.string().nullable(),
  refreshed_at: z.string().nullable(),
  /** Why the last look failed; null when it succeeded. */
  refresh_error: z.string().nullable(),
  /** The next scheduled look (at most every 6 hours; at once after X refuses an operation). */
  next_check_at: z.string().nullable(),
  /** X_WEB_OPERATIONS_FILE, when set. */
  overrides_file: z.string().nullable(),
});
export type XWebOperations = z.infer<typeof xWebOperationsResponseSchema>;

export const xWebOperationNameParamSchema = z.object({
  name: z.enum(X_WEB_OPERATIONS, { error: X_WEB_MESSAGES.operationNotFound }),
});

/** Pins an operation's values (the Admin page): used instead of x.com's until unpinned. */
export const pinXWebOperationRequestSchema = z.object({
  query_id: z
    .string({ error: X_WEB_MESSAGES.queryIdInvalid })
    .trim()
    .regex(/^[A-Za-z0-9_-]{10,40}$/, X_WEB_MESSAGES.queryIdInvalid),
  /** Omitted: the features in use now are kept. */
  features: switches.optional(),
  field_toggles: switches.optional(),
});
export type PinXWebOperationRequest = z.input<typeof pinXWebOperationRequestSchema>;

/** The answers of an admin's read of x.com's client that gave no values (POST .../refresh). */
export const X_WEB_REFRESH_MESSAGES = {
  notXWeb: "x.com's client is read only with TWEET_SOURCE=x-web.",
  tooSoon: (seconds: number) =>
    `x.com's client was checked moments ago: try again in ${seconds} s.`,
  failed: (reason: string) =>
    `x.com's client could not be read (${reason}). The operations in use are kept.`,
} as const;

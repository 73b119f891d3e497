import path from 'node:path';
import { X_METRIC_REFRESH_PRESETS } from '@perch/shared';
import { z } from 'zod';
import { defaultAllowedHosts, parseAllowedHosts } from './lib/request-origin.js';
import { parseTrustProxy } from './lib/trust-proxy.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');
const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));
const url = (fallback: string) => z.url().default(fallback);
/** An empty value (`NAME=` in an env file) means the default. */
const emptyAsUnset = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
/** A value read by `parse`, which answers it or what is wrong with it (unset reads as ''). */
const parsedBy = <T>(parse: (raw: string) => { value: T } | { problem: string }) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const result = parse(raw ?? '');
      if ('value' in result) return result.value;
      ctx.issues.push({ code: 'custom', message: result.problem, input: raw });
      return z.NEVER;
    });

/**
 * Days of a retention setting: 0 (keep for ever) or from `least` up to 100 years. An empty value
 * means the default, never 0.
 */
const retentionDays = (fallback: number, least = 1) =>
  z.preprocess(
    emptyAsUnset,
    z.coerce
      .number()
      .int()
      .min(0)
      .max(36_500)
      .refine((days) => days === 0 || days >= least, {
        error: `must be 0 (keep for ever) or at least ${least}`,
      })
      .default(fallback),
  );

/**
 * Every environment variable Perch reads, with its default. Names are fixed:
 * tests, operators and the README rely on them.
 */
const envSchema = z.object({
  /** Interface the HTTP server binds to. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** TCP port of the HTTP server. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Folder for the SQLite database and other local state. */
  DATA_DIR: z.string().min(1).default('./data'),
  /** PostgreSQL connection string; unset means SQLite in DATA_DIR. */
  DATABASE_URL: optionalString,
  /** Redis connection string for scale-out mode; unset means in-process queues and events. */
  REDIS_URL: optionalString,
  /** Prefix of every Redis key and channel, so several deployments (or tests) share a Redis. */
  REDIS_PREFIX: z.preprocess(
    emptyAsUnset,
    z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - only (at most 64)')
      .default('perch'),
  ),
  /**
   * What this process does: `all` (HTTP, collection and delivery: the embedded default), `api`
   * (HTTP and the web app only) or `worker` (collection, delivery and the Telegram updates
   * poller; HTTP serves only /api/v1/health and /metrics).
   */
  PERCH_ROLE: z.preprocess(emptyAsUnset, z.enum(['all', 'api', 'worker']).default('all')),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * How log lines are written: `json` (one object a line) or `pretty` (pino-pretty, for a person).
   * Unset: pretty when stdout is a terminal (and not under the tests), JSON otherwise.
   */
  LOG_FORMAT: z.preprocess(emptyAsUnset, z.enum(['json', 'pretty']).optional()),
  /** Mark cookies Secure (set true behind HTTPS). */
  COOKIE_SECURE: bool.default(false),
  /**
   * Which peers may set X-Forwarded-For/-Proto/-Host (lib/trust-proxy.ts): unset or `false`, no
   * proxy; a hop count (`1`: the one proxy in front; `true` means 1); or a comma list of proxy
   * addresses and CIDR ranges (`10.0.0.0/8,127.0.0.1`). The client is the rightmost address no
   * trusted proxy added, never a value the client wrote.
   */
  TRUST_PROXY: parsedBy(parseTrustProxy),
  /**
   * Where tweets come from: `demo` (synthetic), `x-api` (X API v2) or `x-web` (X's private web
   * API with a pool of signed-in accounts, added on the Admin page or with the CLI).
   */
  TWEET_SOURCE: z.enum(['demo', 'x-api', 'x-web']).optional(),
  /** App-only bearer token of the X API v2. */
  X_BEARER_TOKEN: optionalString,
  /** Base URL of the X API. */
  X_API_BASE_URL: url('https://api.x.com'),
  /** x-web: base URL of X's web app (GraphQL under /i/api/graphql). */
  X_WEB_BASE_URL: url('https://x.com'),
  /** x-web: base URL of X's web sign-in flow (guest/activate.json, onboarding/task.json). */
  X_WEB_API_BASE_URL: url('https://api.x.com'),
  /**
   * x-web: a JSON file of GraphQL operation values that win over x.com's client and the Admin
   * page's pins: `{ "<Operation>": { "queryId": "...", "features"?: {..}, "fieldToggles"?: {..} } }`.
   * Read again when it changes; a malformed file is logged and ignored. Unset: none.
   */
  X_WEB_OPERATIONS_FILE: optionalString,
  /**
   * x-web: the least time between two reads of x.com's client forced by X refusing an operation
   * (404, missing features); the scheduled read is every 6 hours. Tests shorten it.
   */
  X_WEB_OPERATIONS_RECHECK_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
  /** OAuth 2.0 client id for connecting a user's X account. */
  X_CLIENT_ID: optionalString,
  /** OAuth 2.0 client secret (confidential clients). */
  X_CLIENT_SECRET: optionalString,
  /** X OAuth 2.0 authorize page. */
  X_OAUTH_AUTHORIZE_URL: url('https://x.com/i/oauth2/authorize'),
  /**
   * The URL people reach Perch at (e.g. https://perch.example.com): the origin of the feed URLs
   * and of the OAuth redirect back from X. Unset means the request's protocol and host, when
   * that host is in ALLOWED_HOSTS.
   */
  PUBLIC_URL: optionalString
    .refine((value) => value === undefined || /^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(value), {
      error: 'must be an http:// or https:// URL without query or fragment',
    })
    .transform((value) => value?.replace(/\/+$/, '')),
  /**
   * Without PUBLIC_URL, the hosts (comma list of host[:port]; no port: any port) whose requests
   * may have addresses built from their Host header; any other host gets 400. Unset: the
   * loopback names (and PUBLIC_URL's host). Never read when PUBLIC_URL is set.
   */
  ALLOWED_HOSTS: parsedBy(parseAllowedHosts),
  /**
   * Key material (32+ characters) for encrypting stored credentials such as X tokens; unset means
   * a random key generated once in DATA_DIR/secret.key. Set it when DATA_DIR is not kept (scale-out).
   */
  SECRET_KEY: optionalString.refine((value) => value === undefined || value.length >= 32, {
    error: 'must be at least 32 characters',
  }),
  /** Limit of every X API request, connecting included (s): past it the try counts as transient. */
  X_REQUEST_TIMEOUT_SECONDS: z.coerce.number().min(1).max(600).default(30),
  /** USD per post X returns (billed once per post and UTC day). */
  X_PRICE_POST_READ_USD: z.coerce.number().min(0).max(100).default(0.005),
  /** USD per user X returns (billed once per user and UTC day). */
  X_PRICE_USER_READ_USD: z.coerce.number().min(0).max(100).default(0.01),
  /**
   * Most USD spent on X reads per UTC day; unset = no limit. Metric refresh stops at 80% of it,
   * backfill at 90%, new tweets at 100%; everything resumes at 00:00 UTC.
   */
  X_DAILY_SPEND_LIMIT_USD: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z.coerce.number().positive().max(1_000_000).optional(),
  ),
  /**
   * When posts' metrics are read again: `standard` at 1, 3, 6, 24 and 72 h after posting (each
   * post billed on three UTC days), `economy` only the readings on the post's creation UTC day
   * (each post billed once).
   */
  X_METRIC_REFRESH: z.preprocess(
    (value) => (typeof value === 'string' ? value.trim().toLowerCase() || undefined : value),
    z
      .enum(X_METRIC_REFRESH_PRESETS, {
        error: `must be ${X_METRIC_REFRESH_PRESETS.join(' or ')} (standard re-reads posts at 1, 3, 6, 24 and 72 h; economy only on the day they were posted)`,
      })
      .default('standard'),
  ),
  /** Minutes between profile reads of a handle (batched lookups by id, 100 per request). */
  PROFILE_REFRESH_MINUTES: z.coerce.number().int().min(1).max(1_440).default(15),
  /** Seconds between monitoring polls of a handle. */
  MONITOR_INTERVAL_SECONDS: z.coerce.number().int().min(5).max(86_400).default(60),
  /** How many collection jobs (backfill pages, polls) run at once. */
  COLLECTOR_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /**
   * Scale-out: seconds a worker's hold on a handle lasts without renewal (the handle's lease,
   * and the lock of its BullMQ job); a PostgreSQL transaction left idle is ended after two
   * thirds of it. A worker that dies or freezes has its handles taken by another within about
   * 1.25 times this plus a second: at the default 15, within the 30 s the docs promise
   * (collector/handle-lease.ts). Tests shorten it.
   */
  COLLECTOR_LEASE_SECONDS: z.coerce.number().int().min(3).max(300).default(15),
  /** How slow the demo source pretends the network is, per page (ms). */
  DEMO_PAGE_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(400),
  /**
   * Demo source only: when set, the demo collector account is challenged for a verification
   * code at start, and collection pauses until a super admin submits exactly this code
   * (Admin, Twitter challenge). Unset means the demo account is never challenged.
   */
  DEMO_CHALLENGE_CODE: optionalString.refine((value) => value === undefined || value.length <= 64, {
    error: 'must be at most 64 characters',
  }),
  /** Telegram bot token for notifications. */
  TELEGRAM_BOT_TOKEN: optionalString,
  /** Base URL of the Telegram Bot API. */
  TELEGRAM_API_BASE_URL: url('https://api.telegram.org'),
  /** Discord bot token for notifications. */
  DISCORD_BOT_TOKEN: optionalString,
  /** Base URL of the Discord API. */
  DISCORD_API_BASE_URL: url('https://discord.com/api/v10'),
  /**
   * Webhooks may reach loopback addresses (127.0.0.0/8, ::1, localhost), and plain http:// to
   * them: for tests and a receiver on the same machine. Off, loopback is refused at every connect.
   */
  WEBHOOK_ALLOW_LOOPBACK: bool.default(false),
  /**
   * Webhooks may reach private network addresses (10/8, 172.16/12, 192.168/16, 100.64/10,
   * fc00::/7): for a receiver on the home or office network. Link-local addresses (cloud
   * metadata services) stay refused either way.
   */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  /**
   * Notifications the delivery worker sends at once, per channel (each still paced by its
   * service's rate gate: Telegram 30/s overall and 1/s per chat, Discord 50/s).
   */
  NOTIFY_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /**
   * Hours a notification may wait (an outage, a stopped bot) before it is given up as 'expired'
   * in the delivery log. Nothing is dropped before, and nothing silently.
   */
  NOTIFY_MAX_AGE_HOURS: z.coerce.number().positive().max(720).default(24),
  /**
   * More than this many notices of one handle waiting for one chat (after an outage) go as one
   * digest message listing them with their links, instead of a flood.
   */
  NOTIFY_DIGEST_AFTER: z.coerce.number().int().min(1).max(100).default(5),
  /**
   * Seconds a delivery worker holds a claimed notification (renewed every third while it
   * runs). A crashed process's claims are sent by another once it runs out; a message that was
   * in flight at the crash may then arrive twice on Telegram (Discord drops the repeat).
   */
  NOTIFY_LEASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /**
   * Long-poll Telegram for updates (one-click linking, `/start`, blocked bots) when
   * TELEGRAM_BOT_TOKEN is set. Only one process per bot token may do this: turn it off in the
   * others, or when the bot's updates go elsewhere (a webhook).
   */
  TELEGRAM_POLL_UPDATES: bool.default(true),
  /**
   * The longest wait of the per-account sign-in delay (modules/auth/login-throttle.ts): past 10
   * failures of one account, each further one doubles the wait before its next attempt, from 1 s
   * up to this. Tests shorten it.
   */
  SIGN_IN_DELAY_MAX_SECONDS: z.coerce.number().int().min(1).max(600).default(60),
  /** Password hashes (argon2) one process runs at once; each takes about a core for ~10-50 ms. */
  PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Password hashes that may wait for a turn; past that a sign-in is answered 503. */
  PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(32),
  /**
   * Argon2id's memory per password hash (KiB) and its passes over it. The defaults are OWASP's
   * minimum (19 MiB, 2 passes); raise them where sign-ins can afford more. Below OWASP's
   * minimums the server warns at start: that is for test suites, which hash thousands of
   * passwords. Hashes keep the cost they were made with, so changing it locks nobody out.
   */
  PASSWORD_HASH_MEMORY_KIB: z.coerce.number().int().min(8).max(4_194_304).default(19_456),
  PASSWORD_HASH_ITERATIONS: z.coerce.number().int().min(1).max(64).default(2),
  /**
   * Days the security log (`security_events`) is kept; the daily clean-up deletes older events.
   * 0 keeps them for ever.
   */
  RETENTION_SECURITY_EVENTS_DAYS: retentionDays(90),
  /** Days sign-in attempts (login history) and ended sessions are kept; 0 keeps them for ever. */
  RETENTION_LOGIN_HISTORY_DAYS: retentionDays(90),
  /**
   * Days finished deliveries (sent, failed, expired, filtered, cancelled) stay in the delivery
   * log; waiting ones are never deleted. 0 keeps them for ever.
   */
  RETENTION_DELIVERY_LOG_DAYS: retentionDays(30),
  /**
   * Days the X cost meter keeps its billed reads (one row per post or user and day): at least 62,
   * because the usage card shows this month and the last; 0 keeps them for ever.
   */
  RETENTION_X_BILLED_READS_DAYS: retentionDays(70, 62),
  /** Address shown to people who need an invitation code. */
  SUPPORT_EMAIL: z.email().default('support@perch.local'),
  /** Enables POST /api/v1/auth/dev-login (never in production). */
  DEV_LOGIN: bool.default(false),
});

export type Env = z.input<typeof envSchema>;

export interface Config extends Omit<
  z.output<typeof envSchema>,
  'TWEET_SOURCE' | 'DATA_DIR' | 'ALLOWED_HOSTS'
> {
  TWEET_SOURCE: 'demo' | 'x-api' | 'x-web';
  /** Absolute path of DATA_DIR. */
  DATA_DIR: string;
  /** ALLOWED_HOSTS, or its default when unset. */
  ALLOWED_HOSTS: readonly string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Checks that span several variables, on the raw values so they add to any per-field problem. */
function crossFieldProblems(env: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  const set = (name: string) => (env[name]?.trim() ?? '') !== '';
  if (env.TWEET_SOURCE === 'x-api' && !set('X_BEARER_TOKEN')) {
    problems.push('TWEET_SOURCE: x-api needs X_BEARER_TOKEN');
  }
  if (set('X_CLIENT_SECRET') && !set('X_CLIENT_ID')) {
    problems.push('X_CLIENT_SECRET: needs X_CLIENT_ID');
  }
  const role = env.PERCH_ROLE?.trim() ?? '';
  if ((role === 'api' || role === 'worker') && !set('REDIS_URL')) {
    problems.push(
      `PERCH_ROLE: ${role} runs beside other processes, which needs REDIS_URL (jobs, events and shared limits)`,
    );
  }
  if ((role === 'api' || role === 'worker') && !set('DATABASE_URL')) {
    problems.push(`PERCH_ROLE: ${role} needs DATABASE_URL (PostgreSQL shared by every process)`);
  }
  const databaseUrl = env.DATABASE_URL?.trim();
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL: must be a postgres:// or postgresql:// URL');
  }
  return problems;
}

/** Reads and validates the environment; throws a ConfigError listing every bad value. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  const problems = [
    ...(parsed.success
      ? []
      : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)),
    ...crossFieldProblems(env),
  ];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const values = parsed.data;
  return {
    ...values,
    DATA_DIR: path.resolve(values.DATA_DIR),
    TWEET_SOURCE: values.TWEET_SOURCE ?? (values.X_BEARER_TOKEN ? 'x-api' : 'demo'),
    ALLOWED_HOSTS: values.ALLOWED_HOSTS ?? defaultAllowedHosts(values.PUBLIC_URL),
  };
}

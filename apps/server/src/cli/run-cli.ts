import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import {
  ROLES,
  X_WEB_MESSAGES,
  addXWebAccountRequestSchema,
  type Role,
  type XWebOperations,
} from '@perch/shared';
import { createRedisCluster } from '../cluster/cluster.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { createDb, type Db } from '../db/index.js';
import { migrateToLatest } from '../db/migrate.js';
import { recordAuthEvent } from '../modules/auth/auth-events.js';
import { createSessionCache } from '../modules/auth/session-cache.js';
import { revokeUserSessions } from '../modules/auth/sessions.repository.js';
import { hashPassword } from '../modules/auth/passwords.js';
import { deletePendingLoginsOf, disableTotp } from '../modules/security/two-factor.repository.js';
import { listInvitations } from '../modules/invitations/invitations.repository.js';
import { createInvitation } from '../modules/invitations/invitations.service.js';
import {
  countSuperAdmins,
  findUserByLogin,
  listUsers,
  setPasswordHash,
  setRoleFlags,
} from '../modules/users/users.repository.js';
import { roleFlags, roleOf } from '../modules/users/users.service.js';
import { findXWebAccountByUsername } from '../sources/x-web/x-web-accounts.repository.js';
import {
  addAccount,
  listAccounts,
  removeAccount,
  resetAccount,
} from '../modules/x-web/x-web-accounts.service.js';
import {
  createOperationsRegistry,
  listOperations,
  refreshFailure,
} from '../modules/x-web/x-web-operations.service.js';
import { isBackupCommand, runBackupCommand } from './backup-cli.js';
import { CommandError, UsageError } from './cli-errors.js';
import { readXWebCookies, refuseCookieArguments } from './x-web-cookies.js';

const USAGE = `Perch operator CLI

Usage: npm run cli -- <command>

  invite create [--role user|admin|superadmin] [--uses N] [--expires-days N]
                        create an invitation; its code is the last line printed
  invite list           list invitations (without their codes, which only create shows)
  user list             list users
  user set-role <username> <user|admin|superadmin>
  user reset-password <username>
                        set a new random password (printed) and sign the user out everywhere
  user disable-2fa <username>
                        turn two-factor sign-in off (for a user who lost the authenticator
                        and the recovery codes)
  x-web list            list the X web collector accounts (TWEET_SOURCE=x-web)
  x-web add-cookies <username>
                        add an account by the cookies of a signed-in browser: auth_token
                        and ct0 from X_WEB_AUTH_TOKEN and X_WEB_CT0, or else from standard
                        input as the browser sends them ('auth_token=...; ct0=...'); never
                        as arguments, which ps and the shell history show
  x-web add <username> --email <address> [--totp-secret <base32>]
                        add an account that signs in with its password, read from
                        X_WEB_PASSWORD or else from the first line of standard input
  x-web remove <username>
  x-web reset <username>
                        put an account that is out (failed, locked, expired) back in the pool
  x-web ops [--refresh] list the GraphQL operations the X web source calls, where their values
                        come from and how the last read of x.com's client went; --refresh
                        reads x.com's client first and says what changed
  backup <file>         copy the database into <file> while Perch runs (SQLite: a consistent
                        snapshot; PostgreSQL: prints the pg_dump command); keep the secret
                        key (DATA_DIR/secret.key or SECRET_KEY) as well
  restore <file>        restore a SQLite backup into an empty DATA_DIR (PostgreSQL: prints
                        the pg_restore command)

It works on the database the server uses (DATA_DIR or DATABASE_URL), also while it runs.`;

function positiveInt(
  value: string | undefined,
  name: string,
  fallback: number | null,
): number | null {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new UsageError(`${name} must be a whole number of at least 1`);
  return parsed;
}

function parseRole(value: string | undefined): Role {
  if (value && (ROLES as readonly string[]).includes(value)) return value as Role;
  throw new UsageError(`role must be one of: ${ROLES.join(', ')}`);
}

function table(rows: Record<string, string | number | null>[]): string {
  if (rows.length === 0) return '(none)';
  const headers = Object.keys(rows[0] ?? {});
  const widths = headers.map((h) =>
    Math.max(h.length, ...rows.map((r) => String(r[h] ?? '-').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map((r) => line(headers.map((h) => String(r[h] ?? '-'))))].join(
    '\n',
  );
}

/**
 * Tells running nodes that a user changed (role, password, two-factor), so their session caches
 * drop that user's sessions now rather than within their 5 s TTL. Only in scale-out mode: the
 * CLI is then one more process on the cluster; otherwise there is nothing to tell.
 */
async function announceUserChange(redisUrl: string | undefined, prefix: string, userId: number) {
  if (!redisUrl) return;
  const cluster = await createRedisCluster({ url: redisUrl, prefix }).catch((error: Error) => {
    console.warn(`Warning: ${error.message}; running nodes see the change within 5 s.`);
    return undefined;
  });
  if (!cluster) return;
  try {
    const cache = await createSessionCache({
      cluster,
      onError: (error) => console.warn(`Warning: ${error.message}`),
    });
    // The running caches answer a newcomer's hello at once: wait for them, then for their acks.
    await new Promise((resolve) => setTimeout(resolve, CLI_HELLO_WAIT_MS));
    await cache.invalidateUser(userId);
    await cache.close();
  } finally {
    await cluster.close();
  }
}

/** How long the CLI listens for the running nodes' hellos before invalidating. */
const CLI_HELLO_WAIT_MS = 200;

type UserChanged = (userId: number) => Promise<void>;

/** Reads one line of `input` (the password of `x-web add`), without echoing it back. */
async function readStdinLine(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) {
    chunks.push(chunk as Buffer);
    if (Buffer.concat(chunks).includes(10)) break;
  }
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

/** The x-web account named, or a CommandError. */
async function xWebAccountNamed(db: Db, username: string | undefined, command: string) {
  if (!username) throw new UsageError(`x-web ${command} needs a username`);
  const row = await findXWebAccountByUsername(db.db, username.replace(/^@/, ''));
  if (!row) throw new CommandError(`no X web account named ${username}`);
  return row;
}

/** Adds an x-web account from the command line, checked as the admin API checks it. */
async function addXWebAccountFromCli(
  db: Db,
  config: Config,
  input: Record<string, unknown>,
): Promise<void> {
  const parsed = addXWebAccountRequestSchema.safeParse(input);
  if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? 'invalid account');
  const account = await addAccount({ config, db: db.db }, parsed.data).catch((error: Error) => {
    throw new CommandError(error.message);
  });
  console.log(
    `Added @${account.username} (${account.auth_method}): ${
      account.status === 'ACTIVE' ? 'collects now' : 'signs in when first needed'
    }.`,
  );
  if (config.TWEET_SOURCE !== 'x-web') {
    console.log('Note: TWEET_SOURCE is not x-web, so the pool is not used until it is.');
  }
}

/** The operations as a table, and how the reads of x.com's client went. */
function printXWebOperations(list: XWebOperations): void {
  console.log(
    table(
      list.operations.map((op) => ({
        operation: op.name,
        query_id: op.query_id,
        source: op.source,
        seen: op.seen_at,
        features: Object.keys(op.features).length,
        toggles: Object.keys(op.field_toggles).length,
      })),
    ),
  );
  console.log('');
  console.log(`Last check: ${list.checked_at ?? 'never'}`);
  console.log(`Last successful read: ${list.refreshed_at ?? 'never'}`);
  console.log(`Next check: ${list.next_check_at ?? 'at the next request'}`);
  console.log(`Last error: ${list.refresh_error ?? 'none'}`);
  if (list.overrides_file) console.log(`Overrides file: ${list.overrides_file}`);
}

/** `x-web ops [--refresh]`: the operations, after a read of x.com's client when asked. */
async function showXWebOperations(db: Db, config: Config, refresh: boolean): Promise<void> {
  const registry = createOperationsRegistry({
    config,
    db: db.db,
    log: {
      info: () => {},
      warn: () => {},
      error: (obj, msg) => console.error(`Warning: ${msg} ${JSON.stringify(obj)}`),
    },
  });
  let failure: Error | null = null;
  if (refresh) {
    const result = await registry.refresh({ force: true, reason: 'asked with the CLI' });
    failure = refreshFailure(result);
    if (!failure) {
      console.log(X_WEB_MESSAGES.operationsRefreshed(result.changed.length));
      if (result.changed.length > 0) console.log(`Changed: ${result.changed.join(', ')}.`);
      if (result.missing.length > 0) {
        console.log(`Not in x.com's client (values kept): ${result.missing.join(', ')}.`);
      }
      console.log('');
    }
  }
  printXWebOperations(await listOperations(registry));
  if (failure) throw new CommandError(failure.message);
}

async function run(
  db: Db,
  args: string[],
  userChanged: UserChanged,
  config: Config,
  env: Record<string, string | undefined>,
  input: NodeJS.ReadableStream,
): Promise<void> {
  const [group, command, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      role: { type: 'string' },
      uses: { type: 'string' },
      'expires-days': { type: 'string' },
      email: { type: 'string' },
      'totp-secret': { type: 'string' },
      refresh: { type: 'boolean' },
    },
  });

  switch (`${group ?? ''} ${command ?? ''}`) {
    case 'invite create': {
      const role = values.role === undefined ? 'user' : parseRole(values.role);
      const invitation = await createInvitation(db, {
        role,
        maxUses: positiveInt(values.uses, '--uses', 1) ?? 1,
        expiresInDays: positiveInt(values['expires-days'], '--expires-days', null),
        createdBy: null,
      });
      const expiry = invitation.expires_at ? `expires ${invitation.expires_at}` : 'never expires';
      console.log(`Invitation for role ${role}, ${invitation.max_uses} use(s), ${expiry}:`);
      console.log(invitation.code);
      return;
    }
    case 'invite list': {
      const rows = await listInvitations(db.db);
      console.log(
        table(
          // Codes are shown once, by `invite create`: the database keeps only their hashes.
          rows.map((r) => ({
            id: r.id,
            role: r.role,
            uses: `${r.uses}/${r.max_uses}`,
            expires: r.expires_at,
            created: r.created_at,
            revoked: r.revoked_at,
          })),
        ),
      );
      return;
    }
    case 'user list': {
      const rows = await listUsers(db.db);
      console.log(
        table(
          rows.map((r) => ({
            id: r.id,
            username: r.username,
            email: r.email,
            role: roleOf(r),
            created: r.created_at,
            last_login: r.last_login_at,
          })),
        ),
      );
      return;
    }
    case 'user set-role': {
      const [username, roleName] = positionals;
      if (!username) throw new UsageError('user set-role needs a username and a role');
      const role = parseRole(roleName);
      const user = await findUserByLogin(db.db, username);
      if (!user) throw new CommandError(`no user named ${username}`);
      if (user.is_super_admin && role !== 'superadmin' && (await countSuperAdmins(db.db)) <= 1) {
        throw new CommandError(
          `${user.username} is the only super admin; promote someone else first`,
        );
      }
      await setRoleFlags(db.db, user.id, roleFlags(role));
      // A privilege change ends the user's sessions: they sign in again under the new role.
      if (roleOf(user) !== role) {
        await revokeUserSessions(db.db, user.id, new Date().toISOString());
      }
      await userChanged(user.id);
      console.log(`${user.username} is now ${role}`);
      return;
    }
    case 'user reset-password': {
      const [username] = positionals;
      if (!username) throw new UsageError('user reset-password needs a username');
      const user = await findUserByLogin(db.db, username);
      if (!user) throw new CommandError(`no user named ${username}`);
      const password = randomBytes(12).toString('base64url');
      const passwordHash = await hashPassword(password);
      await db.db.transaction().execute(async (trx) => {
        await setPasswordHash(trx, user.id, passwordHash);
        await deletePendingLoginsOf(trx, user.id);
        await revokeUserSessions(trx, user.id, new Date().toISOString());
      });
      await recordAuthEvent(db, null, {
        type: 'password_changed',
        severity: 'high',
        description: 'Password reset by an operator with the CLI; every session was signed out.',
        userId: user.id,
        metadata: { source: 'cli' },
      });
      await userChanged(user.id);
      console.log(`New password for ${user.username} (all their sessions were signed out):`);
      console.log(password);
      return;
    }
    case 'user disable-2fa': {
      const [username] = positionals;
      if (!username) throw new UsageError('user disable-2fa needs a username');
      const user = await findUserByLogin(db.db, username);
      if (!user) throw new CommandError(`no user named ${username}`);
      if (!user.totp_secret) throw new CommandError(`${user.username} has no two-factor sign-in`);
      await db.db.transaction().execute((trx) => disableTotp(trx, user.id));
      await userChanged(user.id);
      await recordAuthEvent(db, null, {
        type: 'two_factor_disabled',
        severity: 'high',
        description: 'Two-factor sign-in was turned off by an operator with the CLI.',
        userId: user.id,
        metadata: { source: 'cli' },
      });
      console.log(`Two-factor sign-in is off for ${user.username}; the password alone signs in.`);
      return;
    }
    case 'x-web list': {
      const { accounts } = await listAccounts({ config, db: db.db });
      console.log(
        table(
          accounts.map((a) => ({
            id: a.id,
            username: a.username,
            method: a.auth_method,
            status: a.status,
            reason: a.status_reason ?? (a.challenge_step ? `waits at ${a.challenge_step}` : null),
            last_used: a.last_used_at,
          })),
        ),
      );
      return;
    }
    case 'x-web add-cookies': {
      const [username] = positionals;
      const cookies = await readXWebCookies({
        env,
        input,
        prompt: (text) => console.error(text),
      });
      await addXWebAccountFromCli(db, config, {
        method: 'cookies',
        username: username ?? '',
        ...cookies,
      });
      return;
    }
    case 'x-web add': {
      const [username] = positionals;
      const password = env.X_WEB_PASSWORD ?? (await readStdinLine(input));
      await addXWebAccountFromCli(db, config, {
        method: 'credentials',
        username: username ?? '',
        password,
        email: values.email ?? '',
        totp_secret: values['totp-secret'] ?? null,
      });
      return;
    }
    case 'x-web remove': {
      const row = await xWebAccountNamed(db, positionals[0], 'remove');
      await removeAccount({ config, db: db.db }, row.id);
      console.log(`Removed @${row.username} from the X web collector pool.`);
      return;
    }
    case 'x-web reset': {
      const row = await xWebAccountNamed(db, positionals[0], 'reset');
      const account = await resetAccount({ config, db: db.db }, row.id).catch((error: Error) => {
        throw new CommandError(error.message);
      });
      console.log(
        `@${account.username} is back in the pool (${
          account.status === 'ACTIVE' ? 'with its cookies' : 'signs in when first needed'
        }).`,
      );
      return;
    }
    case 'x-web ops': {
      await showXWebOperations(db, config, values.refresh ?? false);
      return;
    }
    default:
      throw new UsageError(group ? `unknown command: ${args.join(' ')}` : 'no command given');
  }
}

/**
 * Runs the CLI with `args`; returns the exit code. Secrets (an x-web password, cookies) come from
 * `env` or `input` (standard input), never from `args`.
 */
export async function runCli(
  args: string[],
  env: Record<string, string | undefined> = process.env,
  input: NodeJS.ReadableStream = process.stdin,
): Promise<number> {
  if (args.length === 0 || args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return args.length === 0 ? 1 : 0;
  }
  let db: Db | undefined;
  try {
    refuseCookieArguments(args);
    const config = loadConfig(env);
    if (isBackupCommand(args)) {
      await runBackupCommand(config, args, env.INIT_CWD ?? process.cwd());
      return 0;
    }
    db = createDb(config);
    await migrateToLatest(db);
    await run(
      db,
      args,
      (userId) => announceUserChange(config.REDIS_URL, config.REDIS_PREFIX, userId),
      config,
      env,
      input,
    );
    return 0;
  } catch (error) {
    if (error instanceof CommandError) {
      console.error(`Error: ${error.message}`);
      return 1;
    }
    if (error instanceof UsageError) {
      console.error(`Error: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (
      error instanceof ConfigError ||
      (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
    ) {
      console.error((error as Error).message);
      return 2;
    }
    throw error;
  } finally {
    await db?.close();
  }
}

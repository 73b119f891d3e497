import { parseArgs } from 'node:util';
import { createRedisCluster } from '../cluster/redis-cluster.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { createDb, type Db } from '../db/index.js';
import { migrateToLatest } from '../db/migrate.js';
import { configurePasswordHashing } from '../modules/auth/passwords.js';
import { createSessionCache } from '../modules/auth/session-cache.js';
import { isBackupCommand, runBackupCommand } from './backup-cli.js';
import { CommandError, UsageError } from './cli-errors.js';
import { refuseCookieArguments } from './x-web-cookies.js';
import type { CommandGroup } from './cli-command.js';
import { inviteCommands } from './invite-commands.js';
import { userCommands } from './user-commands.js';
import { xWebCommands } from './x-web-commands.js';

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

/** Every command, by group and name. */
const COMMAND_GROUPS: Record<string, CommandGroup> = {
  invite: inviteCommands,
  user: userCommands,
  'x-web': xWebCommands,
};

/** The command of `group` named `command`, if there is one. */
function commandNamed(group = '', command = ''): CommandGroup[string] | undefined {
  const commands = Object.hasOwn(COMMAND_GROUPS, group) ? COMMAND_GROUPS[group] : undefined;
  return commands && Object.hasOwn(commands, command) ? commands[command] : undefined;
}

/** Parses the options any command may take, refusing one no command knows. */
function parseCommandArguments(args: string[]) {
  return parseArgs({
    args,
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
}

/** Runs the command `args` names, or throws a UsageError naming what is wrong. */
async function run(
  db: Db,
  args: string[],
  userChanged: UserChanged,
  config: Config,
  env: Record<string, string | undefined>,
  input: NodeJS.ReadableStream,
): Promise<void> {
  const [group, command, ...rest] = args;
  const { values, positionals } = parseCommandArguments(rest);
  const handler = commandNamed(group, command);
  if (!handler) {
    throw new UsageError(group ? `unknown command: ${args.join(' ')}` : 'no command given');
  }
  await handler({ db, config, env, input, positionals, values, userChanged });
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
    // A password the CLI sets is hashed at the cost the server would use.
    configurePasswordHashing(config);
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

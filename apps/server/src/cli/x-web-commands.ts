import { X_WEB_MESSAGES, addXWebAccountRequestSchema, type XWebOperations } from '@perch/shared';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
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
import { CommandError, UsageError } from './cli-errors.js';
import { printTable, type CliCommand, type CommandGroup } from './cli-command.js';
import { readXWebCookies } from './x-web-cookies.js';

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

/**
 * Adds the x-web account the command's first argument names, with the rest of `input`,
 * checked as the admin API checks it.
 */
async function addXWebAccountFromCli(
  { db, config, positionals }: CliCommand,
  input: Record<string, unknown>,
): Promise<void> {
  const parsed = addXWebAccountRequestSchema.safeParse({
    username: positionals[0] ?? '',
    ...input,
  });
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
  printTable(list.operations, (op) => ({
    operation: op.name,
    query_id: op.query_id,
    source: op.source,
    seen: op.seen_at,
    features: Object.keys(op.features).length,
    toggles: Object.keys(op.field_toggles).length,
  }));
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

/** `x-web list`: the X web collector accounts. */
async function listXWebAccountsCommand({ db, config }: CliCommand): Promise<void> {
  const { accounts } = await listAccounts({ config, db: db.db });
  printTable(accounts, (a) => ({
    id: a.id,
    username: a.username,
    method: a.auth_method,
    status: a.status,
    reason: a.status_reason ?? (a.challenge_step ? `waits at ${a.challenge_step}` : null),
    last_used: a.last_used_at,
  }));
}

/** `x-web add-cookies <username>`: an account by the cookies of a signed-in browser. */
async function addXWebCookiesCommand(command: CliCommand): Promise<void> {
  const cookies = await readXWebCookies({
    env: command.env,
    input: command.input,
    prompt: (text) => console.error(text),
  });
  await addXWebAccountFromCli(command, { method: 'cookies', ...cookies });
}

/** `x-web add <username>`: an account that signs in with its password. */
async function addXWebCredentialsCommand(command: CliCommand): Promise<void> {
  const { env, input, values } = command;
  const password = env.X_WEB_PASSWORD ?? (await readStdinLine(input));
  await addXWebAccountFromCli(command, {
    method: 'credentials',
    password,
    email: values.email ?? '',
    totp_secret: values['totp-secret'] ?? null,
  });
}

/** `x-web remove <username>`. */
async function removeXWebAccountCommand({ db, config, positionals }: CliCommand): Promise<void> {
  const row = await xWebAccountNamed(db, positionals[0], 'remove');
  await removeAccount({ config, db: db.db }, row.id);
  console.log(`Removed @${row.username} from the X web collector pool.`);
}

/** `x-web reset <username>`: an account that is out goes back in the pool. */
async function resetXWebAccountCommand({ db, config, positionals }: CliCommand): Promise<void> {
  const row = await xWebAccountNamed(db, positionals[0], 'reset');
  const account = await resetAccount({ config, db: db.db }, row.id).catch((error: Error) => {
    throw new CommandError(error.message);
  });
  console.log(
    `@${account.username} is back in the pool (${
      account.status === 'ACTIVE' ? 'with its cookies' : 'signs in when first needed'
    }).`,
  );
}

/** `x-web ops [--refresh]`: the GraphQL operations the X web source calls. */
async function xWebOperationsCommand({ db, config, values }: CliCommand): Promise<void> {
  await showXWebOperations(db, config, values.refresh ?? false);
}

/** The `x-web` commands: the accounts of the X web collector pool and its operations. */
export const xWebCommands: CommandGroup = {
  list: listXWebAccountsCommand,
  'add-cookies': addXWebCookiesCommand,
  add: addXWebCredentialsCommand,
  remove: removeXWebAccountCommand,
  reset: resetXWebAccountCommand,
  ops: xWebOperationsCommand,
};

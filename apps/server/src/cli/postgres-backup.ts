/**
 * The pg_dump and pg_restore commands for a DATABASE_URL. Perch does not run them: they need
 * PostgreSQL's client tools of the server's major version, which the operator has and the app
 * does not. The commands never show a password (neither the URL's nor a `password` parameter):
 * the operator gives it with PGPASSWORD or ~/.pgpass.
 */

export interface PostgresBackupCommands {
  /** pg_dump in the custom format (compressed, restorable table by table). */
  dump: string;
  /** pg_restore of that dump into an empty database. */
  restore: string;
  /** Whether a password was left out of the URL (the operator must then give it). */
  passwordLeftOut: boolean;
}

/** Characters a POSIX shell takes literally in a word. */
const SHELL_SAFE = /^[A-Za-z0-9_./:=@%+,-]+$/;

/** `value` as one POSIX shell word: single-quoted unless every character is safe. */
export function shellQuote(value: string): string {
  if (SHELL_SAFE.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The name of a query parameter `name=value`, decoded when it can be. */
function parameterName(pair: string): string {
  const name = pair.split('=')[0] ?? '';
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** The URL without its password, and whether it had one. */
function withoutPassword(databaseUrl: string): { url: string; passwordLeftOut: boolean } {
  const url = new URL(databaseUrl);
  let passwordLeftOut = url.password !== '';
  url.password = '';
  // libpq reads `password` (and `sslpassword`, the client key's) from the query string too. The
  // query is filtered as written: URLSearchParams would re-encode a space as `+`, which libpq
  // does not decode.
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => {
      const isPassword = /password/i.test(parameterName(pair));
      if (isPassword) passwordLeftOut = true;
      return pair !== '' && !isPassword;
    });
  url.search = kept.length > 0 ? `?${kept.join('&')}` : '';
  return { url: url.toString(), passwordLeftOut };
}

/**
 * The schema Perch writes to when the URL pins one with `options=-c search_path=...` (several
 * Perch deployments in one database): pg_dump would otherwise dump every schema. Undefined for
 * `public` and when the URL sets none.
 */
export function pinnedSchema(databaseUrl: string): string | undefined {
  const options = new URL(databaseUrl).searchParams.get('options') ?? '';
  const match = /(?:^|\s)(?:-c\s*|--)search_path=(\S+)/.exec(options);
  const first = match?.[1]?.split(',')[0]?.replace(/^"(.*)"$/, '$1');
  if (!first || first === 'public' || first === '$user') return undefined;
  return first;
}

/** pg_dump and pg_restore for `file` on the database of `databaseUrl`. */
export function postgresBackupCommands(databaseUrl: string, file: string): PostgresBackupCommands {
  const { url, passwordLeftOut } = withoutPassword(databaseUrl);
  const schema = pinnedSchema(databaseUrl);
  const dbname = `--dbname=${shellQuote(url)}`;
  const dump = [
    'pg_dump',
    '--format=custom',
    ...(schema ? [`--schema=${shellQuote(schema)}`] : []),
    `--file=${shellQuote(file)}`,
    dbname,
  ].join(' ');
  // --no-owner: the restored tables belong to the role of DATABASE_URL, which runs the
  // migrations; --exit-on-error: a half-restored database is not mistaken for a good one.
  const restore = ['pg_restore', '--no-owner', '--exit-on-error', dbname, shellQuote(file)].join(
    ' ',
  );
  return { dump, restore, passwordLeftOut };
}

import { ROLES, type Role } from '@perch/shared';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { UsageError } from './cli-errors.js';

/** What one CLI command works with. */
export interface CliCommand {
  db: Db;
  config: Config;
  env: Record<string, string | undefined>;
  /** Standard input: where secrets come from when `env` does not hold them. */
  input: NodeJS.ReadableStream;
  /** The command's arguments after its group and name. */
  positionals: string[];
  /** The options parsed from the command line (parseCommandOptions). */
  values: CommandOptions;
  /** Tells running nodes that a user changed (their cached sessions are dropped). */
  userChanged: (userId: number) => Promise<void>;
}

/** The options any command may take. */
export interface CommandOptions {
  role?: string;
  uses?: string;
  'expires-days'?: string;
  email?: string;
  'totp-secret'?: string;
  refresh?: boolean;
}

/** Prints `rows` as a table, with the columns `columns` makes of each. */
export function printTable<T>(
  rows: readonly T[],
  columns: (row: T) => Record<string, string | number | null>,
): void {
  console.log(table(rows.map(columns)));
}

/** The commands of one group, by name. */
export type CommandGroup = Record<string, (command: CliCommand) => Promise<void>>;

export function positiveInt(
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

export function parseRole(value: string | undefined): Role {
  if (value && (ROLES as readonly string[]).includes(value)) return value as Role;
  throw new UsageError(`role must be one of: ${ROLES.join(', ')}`);
}

export function table(rows: Record<string, string | number | null>[]): string {
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

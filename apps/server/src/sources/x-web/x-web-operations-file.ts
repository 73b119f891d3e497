/**
 * X_WEB_OPERATIONS_FILE: operations an operator pins in a file (kept in version control, it
 * wins over the Admin page's pins). Read again when its modification time or size changes; a
 * file that cannot be read or is malformed is logged once per version and ignored as a whole.
 * Entries for operations Perch does not call are logged and skipped.
 */
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { X_WEB_OPERATIONS, type XWebOperation } from '@perch/shared';
import { HtmlRefusal } from './x-web-client-page.js';

const MAX_ERROR_CHARS = 500;

/** Where the registry writes what it did (pino's logger fits). */
export interface XWebOperationsLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const switchesSchema = z.record(z.string().regex(/^[A-Za-z0-9_]{1,120}$/), z.boolean());
/** The overrides file: `{ "<Operation>": { "queryId": "..", "features"?: {..}, "fieldToggles"?: {..} } }`. */
const overridesFileSchema = z.record(
  z.string(),
  z.object({
    queryId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{10,40}$/, 'queryId: 10 to 40 letters, digits, _ or -'),
    features: switchesSchema.optional(),
    fieldToggles: switchesSchema.optional(),
  }),
);
export type OverrideEntry = z.infer<typeof overridesFileSchema>[string];
export type Overrides = Partial<Record<XWebOperation, OverrideEntry>>;

/** A failed read in words for the Admin page: X's refusal, or the network's reason. */
export function describeFailure(error: unknown): string {
  let text: string;
  if (error instanceof HtmlRefusal) text = `x.com answered with ${error.message}`;
  else if (error instanceof Error) {
    const cause = error.cause instanceof Error ? error.cause.message : null;
    text = cause && cause !== error.message ? `${error.message}: ${cause}` : error.message;
  } else text = String(error);
  return text.slice(0, MAX_ERROR_CHARS);
}

const MALFORMED = 'X_WEB_OPERATIONS_FILE is malformed: ignored until it changes';

/**
 * The operations the file at `path` pins; {} (logged) when it is not JSON or not of the schema.
 * Operations Perch does not call are logged and left out.
 */
async function readOverridesFile(path: string, log: XWebOperationsLog): Promise<Overrides> {
  let parsed: ReturnType<typeof overridesFileSchema.safeParse>;
  try {
    parsed = overridesFileSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
  } catch (error) {
    log.error({ file: path, err: describeFailure(error) }, MALFORMED);
    return {};
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    log.error(
      { file: path, err: `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` },
      MALFORMED,
    );
    return {};
  }
  const entries = parsed.data;
  const unknown = Object.keys(entries).filter(
    (name) => !(X_WEB_OPERATIONS as readonly string[]).includes(name),
  );
  if (unknown.length > 0) {
    log.error(
      { file: path, unknown, known: X_WEB_OPERATIONS },
      'X_WEB_OPERATIONS_FILE names operations Perch does not call: those are ignored',
    );
  }
  const overrides: Overrides = Object.fromEntries(
    X_WEB_OPERATIONS.filter((name) => entries[name]).map((name) => [name, entries[name]]),
  );
  log.info({ file: path, operations: Object.keys(overrides) }, 'X_WEB_OPERATIONS_FILE read');
  return overrides;
}

/** The overrides file at `path` (unset: none), read when asked and again when it changes. */
export function createOverridesFile(path: string | undefined, log: XWebOperationsLog) {
  /** The overrides file as last read, by its modification time and size. */
  let file: { stamp: string; overrides: Overrides } | null = null;
  let fileReading: Promise<Overrides> | null = null;

  /** The overrides file's values; concurrent calls share one look at it. */
  function readOverrides(): Promise<Overrides> {
    if (!fileReading) {
      fileReading = lookAtOverrides().finally(() => {
        fileReading = null;
      });
    }
    return fileReading;
  }

  async function lookAtOverrides(): Promise<Overrides> {
    if (!path) return {};
    let stamp: string;
    try {
      const info = await stat(path);
      stamp = `${info.mtimeMs}:${info.size}`;
    } catch (error) {
      stamp = `missing:${(error as NodeJS.ErrnoException).code ?? 'error'}`;
      if (file?.stamp !== stamp) {
        log.error(
          { file: path, err: describeFailure(error) },
          'X_WEB_OPERATIONS_FILE cannot be read: ignored',
        );
        file = { stamp, overrides: {} };
      }
      return {};
    }
    if (file?.stamp === stamp) return file.overrides;
    const overrides = await readOverridesFile(path, log);
    file = { stamp, overrides };
    return overrides;
  }

  return { read: readOverrides };
}

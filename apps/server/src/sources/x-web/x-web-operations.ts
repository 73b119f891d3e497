/**
 * The GraphQL operations the x-web source calls, as data: each one's query id, features and
 * field toggles, kept up to date from x.com's client bundle (X rotates them with its
 * deployments) and shared by every process through the database.
 *
 * - Precedence: X_WEB_OPERATIONS_FILE > a pin on the Admin page > the bundle as last read >
 *   the values shipped with Perch. A pin or file entry without features (or toggles) keeps the
 *   ones the next source down would give.
 * - The bundle is read at most every 6 hours, in the background of a request (never blocking
 *   one), by one process at a time: a conditional update of x_web_state.ops_checked_at claims
 *   the read. A forced read (X refused an operation, an admin asked) is still at most one a
 *   minute. A failed read keeps the values in use and is recorded for the Admin page.
 * - X's 400 "The following features cannot be null: a, b" is healed at once: the features are
 *   added to the operation's bundle row, so the next request carries them. A read of the bundle
 *   updates the values of the features it lists and keeps the others: X refuses a request
 *   without a feature it needs and ignores one it does not.
 * - Each process trusts its view of the tables for 30 s, so pins and other processes' reads are
 *   seen within that time; the overrides file is read again when it changes.
 */
import type { Kysely } from 'kysely';
import {
  X_WEB_MESSAGES,
  X_WEB_OPERATIONS,
  type PinXWebOperationRequest,
  type XWebOperation,
  type XWebOperations,
} from '@perch/shared';
import type { Database } from '../../db/types.js';
import { conflict } from '../../lib/errors.js';
import {
  claimXWebOperationsCheck,
  deleteXWebOperationPin,
  finishXWebOperationsCheck,
  listXWebOperationPins,
  listXWebOperationRows,
  readXWebOperationsCheck,
  updateXWebOperationPinFeatures,
  upsertXWebOperationPin,
  upsertXWebOperationRow,
  type XWebOperationsCheck,
} from './x-web-operations.repository.js';
import { readClientOperations, shippedFeatureValue } from './x-web-bundle.js';
import type { ClientPageOptions } from './x-web-client-page.js';
import {
  bundleOrShipped,
  parseSwitches,
  resolve,
  sameValues,
  switchesJson,
  type ResolvedOperation,
  type View,
} from './x-web-operations-layers.js';
import type { Cookies } from './x-web-http.js';
import {
  createOverridesFile,
  describeFailure,
  type XWebOperationsLog,
} from './x-web-operations-file.js';

export type { XWebOperationsLog };

/** How often the bundle is read when nothing asks sooner. */
export const REFRESH_EVERY_MS = 6 * 60 * 60_000;
/** A forced read is made at most this often (in the whole cluster). */
export const MIN_FORCED_GAP_MS = 60_000;
/** How long a process trusts its view of the tables. */
export const VIEW_CACHE_MS = 30_000;
/** The answer of a read that was not made because another was made moments ago. */
export const CHECKED_MOMENTS_AGO = "x.com's client was checked moments ago";

const silentLog: XWebOperationsLog = { info: () => {}, warn: () => {}, error: () => {} };

export interface XWebOperationsOptions {
  db: Kysely<Database>;
  /** x.com's page: X_WEB_BASE_URL, the request timeout (and a fetch for tests). */
  page: ClientPageOptions;
  /** A signed-in session's cookies, to read the page as its browser would; null: signed out. */
  cookies: () => Promise<Cookies | null>;
  now?: () => number;
  /** X_WEB_OPERATIONS_FILE: values that win over everything else. */
  overridesFile?: string;
  /** Default REFRESH_EVERY_MS. */
  refreshEveryMs?: number;
  /** Default MIN_FORCED_GAP_MS. */
  minForcedGapMs?: number;
  /** Default VIEW_CACHE_MS. */
  cacheMs?: number;
  log?: XWebOperationsLog;
}

/** An operation's values as the source sends them, and where they came from. */
export type { ResolvedOperation };

export interface RefreshResult {
  /** Operations whose bundle values changed (against the earlier read, or the shipped ones). */
  changed: XWebOperation[];
  /** Operations the client did not show: their values are kept. */
  missing: XWebOperation[];
  /** Why no values were read (the failure, or CHECKED_MOMENTS_AGO); null when they were. */
  error: string | null;
  /** Set when no read was made because another was recent: ms until one may be forced. */
  retryAfterMs: number | null;
}

export interface XWebOperationsRegistry {
  /**
   * The values to call `name` with now. Starts a read of the bundle in the background when
   * none was made for `refreshEveryMs` (in any process); never waits for it.
   */
  current(name: XWebOperation): Promise<ResolvedOperation>;
  /**
   * Reads the bundle when one is due (`force`: unless one was made within `minForcedGapMs`)
   * and stores what it shows. Calls while a read runs share it. Never throws: a failure is in
   * the result and in the state the Admin page shows.
   */
  refresh(options?: { force?: boolean; reason?: string }): Promise<RefreshResult>;
  /**
   * X answered that these features cannot be null: adds them to the operation's values in use
   * (page value, shipped value, else false), so the next request carries them.
   */
  addMissingFeatures(name: XWebOperation, features: string[]): Promise<void>;
  /** Every operation as the Admin page shows it, with the state of the reads. */
  list(): Promise<XWebOperations>;
  /** Pins an operation's values; the answer is the new list. */
  pin(
    name: XWebOperation,
    request: PinXWebOperationRequest,
    by: string | null,
  ): Promise<XWebOperations>;
  /** Removes a pin (409 when there is none); the answer is the new list. */
  unpin(name: XWebOperation): Promise<XWebOperations>;
  /** Resolves when no read of the bundle runs in this process (tests, shutdown). */
  idle(): Promise<void>;
}

const iso = (ms: number) => new Date(ms).toISOString();
const FEATURE_NAME = /^[A-Za-z0-9_]{1,120}$/;

class OperationsRegistry implements XWebOperationsRegistry {
  private readonly db: Kysely<Database>;
  private readonly now: () => number;
  private readonly refreshEveryMs: number;
  private readonly minForcedGapMs: number;
  private readonly cacheMs: number;
  private readonly log: XWebOperationsLog;
  private readonly overridesFile: ReturnType<typeof createOverridesFile>;
  private view: View | null = null;
  private viewLoading: Promise<View> | null = null;
  /** Bumped by every write of this process, so a view read before it is not kept. */
  private generation = 0;
  private inFlight: Promise<RefreshResult> | null = null;
  /** The page's feature values at this process's last read (for healing). */
  private pageFeatures: Record<string, boolean> = {};

  constructor(private readonly options: XWebOperationsOptions) {
    this.db = options.db;
    this.now = options.now ?? Date.now;
    this.refreshEveryMs = options.refreshEveryMs ?? REFRESH_EVERY_MS;
    this.minForcedGapMs = options.minForcedGapMs ?? MIN_FORCED_GAP_MS;
    this.cacheMs = options.cacheMs ?? VIEW_CACHE_MS;
    this.log = options.log ?? silentLog;
    this.overridesFile = createOverridesFile(options.overridesFile, this.log);
  }

  async current(name: XWebOperation): Promise<ResolvedOperation> {
    const known = await this.viewNow();
    if (!this.inFlight && this.due(known.check)) void this.refresh({ reason: 'scheduled' });
    const { queryId, features, fieldToggles, source } = resolve(name, known);
    return { queryId, features, fieldToggles, source };
  }

  refresh(refreshOptions: { force?: boolean; reason?: string } = {}): Promise<RefreshResult> {
    if (this.inFlight) return this.inFlight;
    const force = refreshOptions.force ?? false;
    const reason = refreshOptions.reason ?? (force ? 'forced' : 'scheduled');
    const run = this.read(force, reason).finally(() => {
      this.inFlight = null;
      // The next answer reads what this read (or another process's) stored.
      this.forget();
    });
    this.inFlight = run;
    return run;
  }

  async addMissingFeatures(name: XWebOperation, features: string[]): Promise<void> {
    const wanted = [...new Set(features)].filter((f) => FEATURE_NAME.test(f));
    if (wanted.length === 0) return;
    const fresh = await this.viewNow(true);
    const added = await this.healBundleRow(name, wanted, fresh);
    const pinLacks = await this.healPin(name, wanted, fresh);
    const fileFeatures = fresh.overrides[name]?.features;
    const fileLacks = fileFeatures ? wanted.filter((f) => fileFeatures[f] === undefined) : [];
    if (fileLacks.length > 0) {
      this.log.warn(
        { operation: name, features: fileLacks, file: this.options.overridesFile },
        'x-web: X needs features that X_WEB_OPERATIONS_FILE does not give this operation',
      );
    }
    if (added.length > 0 || pinLacks.length > 0) {
      this.log.info(
        { operation: name, features: [...new Set([...added, ...pinLacks])] },
        'x-web: X named features the operation lacked; they are sent from now on',
      );
    }
    this.forget();
  }

  async list(): Promise<XWebOperations> {
    const fresh = await this.viewNow(true);
    const checked = fresh.check.checkedAt;
    return {
      operations: X_WEB_OPERATIONS.map((name) => {
        const values = resolve(name, fresh);
        const row = fresh.rows.get(name);
        const overridden = values.source === 'admin' || values.source === 'file';
        return {
          name,
          query_id: values.queryId,
          features: values.features,
          field_toggles: values.fieldToggles,
          source: values.source,
          seen_at: row?.seen_at ?? null,
          bundle_query_id: overridden ? (row?.query_id ?? null) : null,
        };
      }),
      checked_at: checked,
      refreshed_at: fresh.check.refreshedAt,
      refresh_error: fresh.check.error,
      next_check_at: checked ? iso(Date.parse(checked) + this.refreshEveryMs) : null,
      overrides_file: this.options.overridesFile ?? null,
    };
  }

  async pin(
    name: XWebOperation,
    request: PinXWebOperationRequest,
    by: string | null,
  ): Promise<XWebOperations> {
    await upsertXWebOperationPin(this.db, {
      name,
      query_id: request.query_id.trim(),
      features: request.features ? switchesJson(request.features) : null,
      field_toggles: request.field_toggles ? switchesJson(request.field_toggles) : null,
      pinned_at: iso(this.now()),
      pinned_by: by,
    });
    this.forget();
    return this.list();
  }

  async unpin(name: XWebOperation): Promise<XWebOperations> {
    if (!(await deleteXWebOperationPin(this.db, name))) {
      throw conflict(X_WEB_MESSAGES.operationNotPinned(name), 'X_WEB_OPERATION_NOT_PINNED');
    }
    this.forget();
    return this.list();
  }

  async idle(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  private async loadView(): Promise<View> {
    const readAt = this.now();
    const [rows, pins, check, overrides] = await Promise.all([
      listXWebOperationRows(this.db),
      listXWebOperationPins(this.db),
      readXWebOperationsCheck(this.db),
      this.overridesFile.read(),
    ]);
    return {
      rows: new Map(rows.map((row) => [row.name, row])),
      pins: new Map(pins.map((pin) => [pin.name, pin])),
      check,
      overrides,
      readAt,
    };
  }

  /**
   * The view, read again when older than cacheMs; `fresh` reads it now (after a write).
   * Concurrent reads share one; a read begun before a write (`forget`) is not kept.
   */
  private async viewNow(fresh = false): Promise<View> {
    if (!fresh && this.view && this.now() - this.view.readAt < this.cacheMs) return this.view;
    if (!fresh && this.viewLoading) return this.viewLoading;
    const started = this.generation;
    const loading = this.loadView();
    if (!fresh) this.viewLoading = loading;
    try {
      const loaded = await loading;
      if (this.generation === started) this.view = loaded;
      return loaded;
    } finally {
      if (this.viewLoading === loading) this.viewLoading = null;
    }
  }

  /** Drops the view: the next answer reads the tables again. */
  private forget(): void {
    this.view = null;
    this.viewLoading = null;
    this.generation += 1;
  }

  private due(check: XWebOperationsCheck): boolean {
    return (
      check.checkedAt === null || this.now() - Date.parse(check.checkedAt) >= this.refreshEveryMs
    );
  }

  /** One read of the bundle, claimed across processes; stores what it found. */
  private async read(force: boolean, reason: string): Promise<RefreshResult> {
    const startedAt = this.now();
    const waitMs = force ? this.minForcedGapMs : this.refreshEveryMs;
    let claim: { claimed: boolean; checkedAt: string | null };
    try {
      claim = await claimXWebOperationsCheck(this.db, iso(startedAt), iso(startedAt - waitMs));
    } catch (error) {
      const message = describeFailure(error);
      this.log.error({ reason, err: message }, "x-web: could not claim a read of x.com's client");
      return { changed: [], missing: [], error: message, retryAfterMs: null };
    }
    if (!claim.claimed) {
      const last = claim.checkedAt ? Date.parse(claim.checkedAt) : startedAt;
      return {
        changed: [],
        missing: [],
        error: CHECKED_MOMENTS_AGO,
        retryAfterMs: Math.max(0, last + waitMs - startedAt),
      };
    }
    try {
      return await this.readClaimed(reason);
    } catch (error) {
      const message = describeFailure(error);
      await finishXWebOperationsCheck(this.db, { error: message }).catch(() => {});
      this.log.warn(
        { reason, err: message },
        "x-web: x.com's client could not be read; the operations in use are kept",
      );
      return { changed: [], missing: [], error: message, retryAfterMs: null };
    }
  }

  /** Reads x.com's client (the read is claimed) and stores each operation it shows. */
  private async readClaimed(reason: string): Promise<RefreshResult> {
    const cookies = await this.options.cookies().catch(() => null);
    const found = await readClientOperations(this.options.page, cookies, X_WEB_OPERATIONS);
    const names = X_WEB_OPERATIONS.filter((name) => found.operations[name]);
    if (names.length === 0) {
      throw new Error(
        `no GraphQL operation of Perch's was found in x.com's client (${found.scripts} scripts read)`,
      );
    }
    this.pageFeatures = found.pageFeatures;
    // Read after the fetch, so features healed meanwhile are kept.
    const before = new Map((await listXWebOperationRows(this.db)).map((row) => [row.name, row]));
    const seenAt = iso(this.now());
    const changed: XWebOperation[] = [];
    for (const name of names) {
      const previous = bundleOrShipped(name, before.get(name));
      const declared = found.operations[name]!;
      // Features only grow: X refuses a request that lacks one and ignores one it does not
      // use, so a feature an earlier read or X's own 400 gave is kept.
      const values = { ...declared, features: { ...previous.features, ...declared.features } };
      if (!sameValues(previous, values)) changed.push(name);
      await upsertXWebOperationRow(this.db, {
        name,
        query_id: values.queryId,
        features: switchesJson(values.features),
        field_toggles: switchesJson(values.fieldToggles),
        seen_at: seenAt,
        updated_at: seenAt,
      });
    }
    await finishXWebOperationsCheck(this.db, { refreshedAt: seenAt });
    this.log.info(
      { reason, changed, missing: found.missing, scripts: found.scripts },
      "x-web: read the operations from x.com's client",
    );
    return { changed, missing: found.missing, error: null, retryAfterMs: null };
  }

  /** A feature's value to add: the page's, the shipped one, else false. */
  private valueOf(name: XWebOperation, feature: string): boolean {
    return this.pageFeatures[feature] ?? shippedFeatureValue(name, feature) ?? false;
  }

  /** Adds the wanted features the operation's bundle row lacks; the ones added. */
  private async healBundleRow(
    name: XWebOperation,
    wanted: string[],
    fresh: View,
  ): Promise<string[]> {
    const row = fresh.rows.get(name);
    const bundle = bundleOrShipped(name, row);
    const added = wanted.filter((feature) => bundle.features[feature] === undefined);
    if (added.length === 0) return added;
    const at = iso(this.now());
    await upsertXWebOperationRow(this.db, {
      name,
      query_id: bundle.queryId,
      features: switchesJson({
        ...bundle.features,
        ...Object.fromEntries(added.map((feature) => [feature, this.valueOf(name, feature)])),
      }),
      field_toggles: switchesJson(bundle.fieldToggles),
      seen_at: row?.seen_at ?? at,
      updated_at: at,
    });
    return added;
  }

  /**
   * A pin with features of its own is sent as it is: it gets the wanted ones it lacks too (its
   * values stay). The ones added.
   */
  private async healPin(name: XWebOperation, wanted: string[], fresh: View): Promise<string[]> {
    const pinFeatures = parseSwitches(fresh.pins.get(name)?.features ?? null);
    const pinLacks = pinFeatures ? wanted.filter((f) => pinFeatures[f] === undefined) : [];
    if (!pinFeatures || pinLacks.length === 0) return [];
    await updateXWebOperationPinFeatures(
      this.db,
      name,
      switchesJson({
        ...pinFeatures,
        ...Object.fromEntries(pinLacks.map((feature) => [feature, this.valueOf(name, feature)])),
      }),
    );
    return pinLacks;
  }
}

export function createXWebOperations(options: XWebOperationsOptions): XWebOperationsRegistry {
  return new OperationsRegistry(options);
}

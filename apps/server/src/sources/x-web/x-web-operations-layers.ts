/**
 * The values of an operation in use, layer over layer: the values shipped with Perch, the
 * bundle as last read, an Admin page pin, the overrides file. Pure functions over what a
 * process last read of the tables and the file (its view).
 */
import type { XWebOperation, XWebOperationSource } from '@perch/shared';
import type {
  XWebOperationPinRow,
  XWebOperationRow,
  XWebOperationsCheck,
} from './x-web-operations.repository.js';
import { X_WEB_DEFAULT_OPERATIONS, type OperationValues } from './x-web-operation-defaults.js';
import type { Overrides } from './x-web-operations-file.js';

/** What a process knows of the tables and the file, and when it read them. */
/** An operation's values with where they came from. */
export type ResolvedOperation = OperationValues & { source: XWebOperationSource };

export interface View {
  rows: Map<string, XWebOperationRow>;
  pins: Map<string, XWebOperationPinRow>;
  check: XWebOperationsCheck;
  overrides: Overrides;
  readAt: number;
}

/** A switch map as JSON with sorted keys, so equal values are equal text. */
export function switchesJson(values: Record<string, boolean>): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : 1))),
  );
}

/** A stored switch map; null when the text is not one. */
export function parseSwitches(text: string | null): Record<string, boolean> | null {
  if (text === null) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    return Object.fromEntries(
      Object.entries(parsed as Record<string, unknown>).filter(
        (entry): entry is [string, boolean] => typeof entry[1] === 'boolean',
      ),
    );
  } catch {
    return null;
  }
}

export function sameValues(a: OperationValues, b: OperationValues): boolean {
  return (
    a.queryId === b.queryId &&
    switchesJson(a.features) === switchesJson(b.features) &&
    switchesJson(a.fieldToggles) === switchesJson(b.fieldToggles)
  );
}

/** The bundle's values of an operation, or the shipped ones (also for a row that is unreadable). */
export function bundleOrShipped(
  name: XWebOperation,
  row: XWebOperationRow | undefined,
): OperationValues {
  const shipped = X_WEB_DEFAULT_OPERATIONS[name];
  if (!row) return shipped;
  return {
    queryId: row.query_id,
    features: parseSwitches(row.features) ?? shipped.features,
    fieldToggles: parseSwitches(row.field_toggles) ?? shipped.fieldToggles,
  };
}

/** The values in use, layer over layer: shipped, bundle, pin, file. */
export function resolve(name: XWebOperation, view: View): ResolvedOperation {
  const row = view.rows.get(name);
  let values: ResolvedOperation = {
    ...bundleOrShipped(name, row),
    source: row ? 'bundle' : 'default',
  };
  const pin = view.pins.get(name);
  if (pin) {
    values = {
      queryId: pin.query_id,
      features: parseSwitches(pin.features) ?? values.features,
      fieldToggles: parseSwitches(pin.field_toggles) ?? values.fieldToggles,
      source: 'admin',
    };
  }
  const file = view.overrides[name];
  if (file) {
    values = {
      queryId: file.queryId,
      features: file.features ?? values.features,
      fieldToggles: file.fieldToggles ?? values.fieldToggles,
      source: 'file',
    };
  }
  return values;
}

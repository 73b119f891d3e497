import {
  X_WEB_MESSAGES,
  pinXWebOperationRequestSchema,
  type PinXWebOperationRequest,
  type XWebOperationView,
} from '@perch/shared';
import { ApiError } from '@/lib/api-client';

/** The pin dialog's fields as typed: the switches are JSON text, empty when left out. */
export interface PinFormValues {
  query_id: string;
  features: string;
  field_toggles: string;
}
export type PinField = keyof PinFormValues;
export type PinFormErrors = Partial<Record<PinField, string>>;

export type PinFormResult =
  { ok: true; request: PinXWebOperationRequest } | { ok: false; errors: PinFormErrors };

const FIELDS: readonly PinField[] = ['query_id', 'features', 'field_toggles'];
const NOT_JSON = Symbol('not JSON');

/** The dialog's first values: the query id in use, the switches left out (kept as they are). */
export function pinFormValues(operation: XWebOperationView): PinFormValues {
  return { query_id: operation.query_id, features: '', field_toggles: '' };
}

function readSwitches(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/**
 * Checks the dialog's values with the request's own schema (so with the contract's texts) and
 * builds the request; empty switches are left out of it. Text that is not JSON gets the
 * switches' text too: to the person it is the same mistake.
 */
export function readPinForm(values: PinFormValues): PinFormResult {
  const features = readSwitches(values.features);
  const fieldToggles = readSwitches(values.field_toggles);
  const errors: PinFormErrors = {};
  if (features === NOT_JSON) errors.features = X_WEB_MESSAGES.switchesInvalid;
  if (fieldToggles === NOT_JSON) errors.field_toggles = X_WEB_MESSAGES.switchesInvalid;
  const input = {
    query_id: values.query_id,
    ...(features === undefined || features === NOT_JSON ? {} : { features }),
    ...(fieldToggles === undefined || fieldToggles === NOT_JSON
      ? {}
      : { field_toggles: fieldToggles }),
  };
  const parsed = pinXWebOperationRequestSchema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      const known = typeof field === 'string' && (FIELDS as readonly string[]).includes(field);
      errors[known ? (field as PinField) : 'query_id'] ??= issue.message;
    }
  }
  if (!parsed.success || Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, request: parsed.data };
}

/**
 * Where the server's refusal of a pin belongs: a 400 with the query id's text under the query
 * id, with the switches' text under the switches that were sent. Null for any other failure
 * (the dialog shows it above its buttons).
 */
export function pinRefusalErrors(
  error: unknown,
  request: PinXWebOperationRequest,
): PinFormErrors | null {
  if (!(error instanceof ApiError) || error.status !== 400 || !error.serverMessage) return null;
  const text = error.serverMessage;
  if (text === X_WEB_MESSAGES.queryIdInvalid) return { query_id: text };
  if (text !== X_WEB_MESSAGES.switchesInvalid) return null;
  const errors: PinFormErrors = {};
  if (request.features !== undefined) errors.features = text;
  if (request.field_toggles !== undefined) errors.field_toggles = text;
  return Object.keys(errors).length > 0 ? errors : null;
}

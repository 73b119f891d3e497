import { MESSAGES } from '@perch/shared';
import { ApiError, INVALID_JSON_CODE, clientFailure } from './api-error';

/**
 * Reading the API's answers: the JSON body, the `{ success, data, message }` envelope around it,
 * the texts of a failure and the Retry-After header.
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-blank text field of an object, else undefined. */
export function textField(payload: unknown, key: string): string | undefined {
  if (!isRecord(payload)) return undefined;
  const value = payload[key];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * Milliseconds a Retry-After header value asks for: delay seconds or an HTTP date (a date in
 * the past is 0); undefined when missing or unreadable.
 */
export function parseRetryAfterMs(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** The body as JSON; undefined when empty, an ApiError when it is not JSON. */
export async function readPayload(response: Response, path: string): Promise<unknown> {
  const text = await response.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw clientFailure(response.status, MESSAGES.invalidJsonResponse, INVALID_JSON_CODE, path);
  }
}

/** An envelope that says the call failed, whatever its HTTP status. */
export function isFailureEnvelope(payload: unknown): boolean {
  return isRecord(payload) && payload.success === false;
}

/** A success answer's `data` (the whole body when it has no envelope) and its `message`. */
export function unwrapSuccess(payload: unknown): { data: unknown; message?: string } {
  if (!isRecord(payload) || payload.success !== true) return { data: payload };
  return { data: payload.data, message: textField(payload, 'message') };
}

/** Error text order: the response's message, then its error, then a generic text. */
export function toApiError(
  status: number,
  payload: unknown,
  retryAfterMs: number | undefined,
  path: string,
): ApiError {
  const serverMessage = textField(payload, 'message') ?? textField(payload, 'error');
  const message = serverMessage ?? `Request failed with status ${status}`;
  const code = textField(payload, 'code') ?? `HTTP_${status}`;
  return new ApiError(
    status,
    message,
    code,
    textField(payload, 'details'),
    serverMessage,
    retryAfterMs,
    path,
  );
}

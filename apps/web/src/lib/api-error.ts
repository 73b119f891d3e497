/** Machine codes of failures that never reached the server or never came back. */
export const NETWORK_ERROR_CODE = 'NETWORK_ERROR';
export const TIMEOUT_CODE = 'TIMEOUT';
export const INVALID_JSON_CODE = 'INVALID_JSON';
export const INVALID_RESPONSE_CODE = 'INVALID_RESPONSE';
/** Machine code of a call refused while the retry circuit is open (nothing was sent). */
export const CIRCUIT_OPEN_CODE = 'CIRCUIT_OPEN';

/**
 * A failed API call: the HTTP status (0 when no response arrived), the human text to show,
 * the server's machine code, for a 400 the server's field details, when the response
 * carried a Retry-After header, how long the server asked to wait and, when thrown by ApiClient,
 * the API path that was called.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly details?: string,
    /** The text the server sent, when it sent one (the message may be a generic fallback). */
    readonly serverMessage?: string,
    /** Milliseconds from the response's Retry-After header (seconds or an HTTP date). */
    readonly retryAfterMs?: number,
    /** The API path of the failed call, as passed to ApiClient (e.g. '/handles?page=2'). */
    readonly path?: string,
  ) {
    super(message);
  }
}

/** True for failures where no response arrived: offline, refused connection or timeout. */
export function isNetworkError(error: unknown): boolean {
  return (
    error instanceof ApiError && (error.code === NETWORK_ERROR_CODE || error.code === TIMEOUT_CODE)
  );
}

/**
 * A failure the client states itself, with no words from the server: no answer (status 0), a
 * timeout, or an answer it could not use.
 */
export function clientFailure(status: number, message: string, code: string, path: string) {
  return new ApiError(status, message, code, undefined, undefined, undefined, path);
}

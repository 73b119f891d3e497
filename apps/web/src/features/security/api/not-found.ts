import { ApiError } from '@/lib/api-client';

/**
 * The answer of a security call, or `fallback` when the server answers 404: a server without the
 * security area reads as one with nothing in it (docs/spec-notes.md, Error texts).
 */
export async function orWhenNotFound<T, F>(call: Promise<T>, fallback: F): Promise<T | F> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return fallback;
    throw error;
  }
}

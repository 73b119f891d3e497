/** X handle rule: 1-15 letters, digits or underscores. */
export const HANDLE_PATTERN = /^[A-Za-z0-9_]{1,15}$/;

/** Removes any leading @ signs and surrounding white space. */
export function normalizeHandle(input: string): string {
  return input.trim().replace(/^@+/, '').trim();
}

/**
 * Keys under which older clients kept bearer tokens or the signed-in user. Perch signs browsers
 * in with an http-only cookie only, so these are removed and never sent
 * (docs/spec-notes.md, Roles).
 */
export const LEGACY_TOKEN_KEYS: readonly string[] = [
  'token',
  'authToken',
  'auth_token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'jwt',
  'jwtToken',
  'idToken',
  'user',
  'currentUser',
  'authUser',
];

/** Removes every legacy token (and stored user) from localStorage and sessionStorage. */
export function removeLegacyTokens(): void {
  for (const storage of availableStorages()) {
    for (const key of LEGACY_TOKEN_KEYS) {
      try {
        storage.removeItem(key);
      } catch {
        // Storage can throw when disabled by the browser; nothing to clean then.
      }
    }
  }
}

function availableStorages(): Storage[] {
  const storages: Storage[] = [];
  if (typeof window === 'undefined') return storages;
  try {
    storages.push(window.localStorage);
  } catch {
    // Access denied (privacy mode); skip.
  }
  try {
    storages.push(window.sessionStorage);
  } catch {
    // Access denied (privacy mode); skip.
  }
  return storages;
}

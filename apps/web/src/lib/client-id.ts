const CLIENT_ID_KEY = 'perch.clientId';

let fallbackClientId: string | null = null;

/** A random id for this browser tab, kept for the tab's life (heartbeat `client_id`). */
export function getClientId(): string {
  try {
    const stored = window.sessionStorage.getItem(CLIENT_ID_KEY);
    if (stored) return stored;
    const created = randomId();
    window.sessionStorage.setItem(CLIENT_ID_KEY, created);
    return created;
  } catch {
    fallbackClientId ??= randomId();
    return fallbackClientId;
  }
}

function randomId(): string {
  // crypto.randomUUID needs a secure context; getRandomValues works on plain http as well.
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

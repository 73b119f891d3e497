// A browser-like client of a running Perch over fetch, as TestClient is over inject in the server
// tests: it keeps the cookies it is sent and puts the CSRF token on every unsafe request. Loaded
// under tsx: accounts are registered with the server tests' own request body.
import { registration } from '../../apps/server/test/registration.ts';

/** A cookie-keeping client of `origin`; `cookieHeader()` is its session's Cookie header. */
export function apiSession(origin) {
  const cookies = new Map();
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  async function request(method, url, body) {
    const headers = {};
    if (cookies.size > 0) headers.cookie = cookieHeader();
    if (method !== 'GET') headers['x-csrf-token'] = cookies.get('perch_csrf') ?? '';
    if (body) headers['content-type'] = 'application/json';
    const response = await fetch(origin + url, {
      method,
      headers,
      body: body ? JSON.stringify(body) : undefined,
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...rest] = pair.split('=');
      cookies.set(name.trim(), rest.join('='));
    }
    return response;
  }
  return { cookies, cookieHeader, request };
}

/** Registers `username` with invitation `code` through `origin`'s API; its Cookie header. */
export async function registerThroughApi(origin, { username, password, code }) {
  const session = apiSession(origin);
  await session.request('GET', '/api/v1/auth/check');
  const registered = await session.request(
    'POST',
    '/api/v1/auth/register',
    registration(username, code, {}, password),
  );
  if (registered.status !== 201) throw new Error(`register: ${await registered.text()}`);
  return session.cookieHeader();
}

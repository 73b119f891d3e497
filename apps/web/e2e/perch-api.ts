import { expect, type APIResponse, type Page } from '@playwright/test';

/** The CSRF token of the page's session, which every changing API call sends back. */
export async function csrfToken(page: Page): Promise<string> {
  const cookies = await page.context().cookies();
  return cookies.find((cookie) => cookie.name === 'perch_csrf')?.value ?? '';
}

/** A call of the signed-in page to `/api/v1${path}` on `origin`, with its CSRF token. */
export async function apiCall(
  page: Page,
  origin: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  data?: unknown,
): Promise<APIResponse> {
  return page.request.fetch(`${origin}/api/v1${path}`, {
    method,
    data,
    headers: { 'x-csrf-token': await csrfToken(page) },
  });
}

/** What apiCall takes: the signed-in page, the server's origin, and the request. */
type ApiCallArgs = Parameters<typeof apiCall>;

/** As apiCall, for a call that must answer with `status`. */
export async function apiCallAnswering(status: number, ...call: ApiCallArgs): Promise<APIResponse> {
  const response = await apiCall(...call);
  expect(response.status()).toBe(status);
  return response;
}

/** As apiCall, for a call that must succeed: returns the answer's `data`. */
export async function apiData<T = Record<string, unknown>>(...call: ApiCallArgs): Promise<T> {
  const response = await apiCall(...call);
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { data: T }).data;
}

/** Saves settings through the API, as the Settings page would (POST /settings). */
export async function saveSettings(page: Page, origin: string, settings: Record<string, unknown>) {
  await apiCallAnswering(200, page, origin, 'POST', '/settings', settings);
}

/**
 * Follows `username` through the API as the signed-in page would (the backfill runs in the
 * background) and returns the handle's id.
 */
export async function addHandleByApi(
  page: Page,
  origin: string,
  username: string,
  backfillDays = 7,
): Promise<number> {
  const response = await apiCallAnswering(201, page, origin, 'POST', '/handles', {
    username,
    backfill_days: backfillDays,
    async: true,
  });
  return ((await response.json()) as { data: { handle: { id: number } } }).data.handle.id;
}

/** Switches a handle's notification channels, e.g. `{ telegramEnabled: true }`. */
export async function switchNotifications(
  page: Page,
  origin: string,
  handleId: number,
  channels: Record<string, boolean>,
) {
  await apiCallAnswering(200, page, origin, 'PUT', `/handles/${handleId}/notifications`, channels);
}

/** Waits until the API says the handle's backfill is complete. */
export async function waitForBackfill(
  page: Page,
  origin: string,
  handle: string,
  timeout = 60_000,
) {
  await expect
    .poll(
      async () => {
        const response = await page.request.get(
          `${origin}/api/v1/handles/${handle}/backfill-progress`,
        );
        return ((await response.json()) as { data: { isComplete: boolean } }).data.isComplete;
      },
      { timeout },
    )
    .toBe(true);
}

import { expect, type Locator, type Page } from '@playwright/test';

/** The dashboard's handle panel. */
export function handlePanel(page: Page): Locator {
  return page.getByTestId('handle-panel');
}

/** The row of `@handle` in the dashboard's handle panel. */
export function handleRow(page: Page, handle: string): Locator {
  return handlePanel(page)
    .getByTestId('handle-row')
    .filter({ hasText: `@${handle}` });
}

/** The status badge of `@handle` in the sidebar. */
export function sidebarStatus(page: Page, handle: string): Locator {
  return page
    .getByTestId('sidebar-handle')
    .filter({ hasText: `@${handle}` })
    .getByTestId('handle-status');
}

/** Waits until a handle row's badge says Ready (its backfill is done). */
export async function expectReady(row: Locator, timeout: number) {
  await expect(row.getByTestId('handle-status')).toHaveText(/Ready/, { timeout });
}

/**
 * Adds `handle` with the handle panel's form, as a person would; `days` picks a backfill chip
 * other than the default.
 */
export async function addHandleInPanel(
  page: Page,
  handle: string,
  { days }: { days?: number } = {},
) {
  const panel = handlePanel(page);
  await panel.getByLabel('Twitter handle').fill(handle);
  if (days !== undefined) await panel.getByText(`${days} days`, { exact: true }).click();
  await panel.getByRole('button', { name: 'Add handle' }).click();
}

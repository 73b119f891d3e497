import type { Delivery } from '@perch/shared';
import { screen } from '@testing-library/react';
import { ok, stubFetch } from '@/test/fetch-stub';
import { renderRoute } from '@/test/render';
import { SettingsView } from '../components/settings-view';
import { settingsServer } from './settings-fixtures';

/** Renders the Settings page body at /settings (with an optional query string). */
export function renderSettings(search = '') {
  return renderRoute('/settings', <SettingsView />, {
    initialPath: `/settings${search}`,
    routes: [{ path: '/', element: <p>Dashboard page</p> }],
  });
}

/** A card of the page, once the settings have loaded. */
export async function findCard(testId: string): Promise<HTMLElement> {
  return screen.findByTestId(testId);
}

/** Serves the page from `server`, renders it and waits for one card; with the fetch stub. */
export async function openCard(testId: string, server = settingsServer()) {
  const fetchMock = stubFetch(server.handlers);
  renderSettings();
  return { fetchMock, card: await findCard(testId) };
}

/** Serves the page with these deliveries in the log, renders it and waits for the log card. */
export async function openDeliveryLog(deliveries: Delivery[]) {
  const server = settingsServer();
  const fetchMock = stubFetch({
    ...server.handlers,
    'GET /api/v1/settings/deliveries': () => ok({ deliveries }),
  });
  renderSettings();
  return { fetchMock, log: await findCard('delivery-log') };
}

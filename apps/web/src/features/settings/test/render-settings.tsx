import { screen } from '@testing-library/react';
import { renderRoute } from '@/test/render';
import { SettingsView } from '../components/settings-view';

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

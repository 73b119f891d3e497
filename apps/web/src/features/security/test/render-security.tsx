import { screen } from '@testing-library/react';
import type { ReactElement } from 'react';
import { renderRoute } from '@/test/render';
import { SecurityView } from '../components/security-view';

/** Renders a security card (or the whole page body) at /security. */
export function renderSecurity(element: ReactElement = <SecurityView />) {
  return renderRoute('/security', element);
}

/** One card of the page, by its title. */
export function card(name: string | RegExp): HTMLElement {
  return screen.getByRole('region', { name });
}

import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { beforeEach } from 'vitest';
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

/** Someone at the keyboard and mouse, without pauses between keys. */
export const person = () => userEvent.setup({ delay: null });

/** Before each test of the block, the CSRF cookie a signed-in browser holds, so changes go out. */
export function withCsrfCookie() {
  beforeEach(() => {
    document.cookie = 'perch_csrf=csrf; path=/';
  });
}

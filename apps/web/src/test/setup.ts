import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';
import { fakeMediaQueryList } from './media-query';
import { clearTestQueryClients } from './query-clients';

// Lazy routes are transformed on first import; give slow machines time before failing.
configure({ asyncUtilTimeout: 5_000 });

// jsdom lacks the layout APIs Mantine reads.
if (!window.matchMedia) {
  Object.defineProperty(window, 'matchMedia', {
    writable: true,
    configurable: true,
    value: (query: string): MediaQueryList => fakeMediaQueryList(query, false),
  });
}

class ResizeObserverStub implements ResizeObserver {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
if (!('ResizeObserver' in window)) {
  Object.defineProperty(window, 'ResizeObserver', { writable: true, value: ResizeObserverStub });
  Object.defineProperty(globalThis, 'ResizeObserver', {
    writable: true,
    value: ResizeObserverStub,
  });
}

window.HTMLElement.prototype.scrollIntoView = function scrollIntoView() {};
Object.defineProperty(window, 'scrollTo', { writable: true, value: () => undefined });

afterEach(() => {
  cleanup();
  clearTestQueryClients();
  window.localStorage.clear();
  window.sessionStorage.clear();
  for (const cookie of document.cookie.split(';')) {
    const name = cookie.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
  }
});

import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';
import { clearTestQueryClients } from './query-clients';
import { DESKTOP, setViewport } from './viewport';

// Lazy routes are transformed on first import; give slow machines time before failing.
configure({ asyncUtilTimeout: 5_000 });

afterEach(() => {
  cleanup();
  clearTestQueryClients();
  setViewport(DESKTOP);
  window.localStorage.clear();
  window.sessionStorage.clear();
  for (const cookie of document.cookie.split(';')) {
    const name = cookie.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
  }
});

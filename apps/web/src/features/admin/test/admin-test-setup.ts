import { afterEach, beforeEach, vi } from 'vitest';

export interface AdminTestOptions {
  /** Sets the CSRF cookie the server hands out at sign-in, which every write sends back. */
  csrf?: boolean;
  /** Fakes the clock from this instant in every test (it still moves with real time). */
  now?: Date;
}

/**
 * The set-up the admin tests share: the CSRF cookie and, where asked, a fake clock; every test
 * ends on real timers with its spies restored.
 */
export function setUpAdminTests({ csrf = true, now }: AdminTestOptions = {}) {
  beforeEach(() => {
    if (csrf) document.cookie = 'perch_csrf=csrf; path=/';
    if (now) vi.useFakeTimers({ shouldAdvanceTime: true, now });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
}

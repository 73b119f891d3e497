import { vi } from 'vitest';
import { fakeMediaQueryList } from '@/test/media-query';

/** A phone: every max-width media query matches, so lists render as cards. */
export function phoneScreen() {
  vi.spyOn(window, 'matchMedia').mockImplementation((query: string) =>
    fakeMediaQueryList(query, query.includes('max-width')),
  );
}

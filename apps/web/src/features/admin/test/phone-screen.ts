import { PHONE, setViewport } from '@/test/viewport';

/** A phone: the window is narrower than Mantine's `sm` breakpoint, so lists render as cards. */
export function phoneScreen() {
  setViewport(PHONE);
}

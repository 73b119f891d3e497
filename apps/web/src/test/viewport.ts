/**
 * The size of the tests' window (happy-dom's), which media queries answer to: `matchMedia`,
 * Mantine's `hiddenFrom` and `visibleFrom`. Every test starts at DESKTOP (src/test/setup.ts).
 */
interface TestWindow {
  happyDOM: { setViewport(viewport: Viewport): void };
}

export interface Viewport {
  width: number;
  height: number;
}

/** happy-dom's own default. */
export const DESKTOP: Viewport = { width: 1024, height: 768 };
/** Below Mantine's `sm` breakpoint (48em). */
export const PHONE: Viewport = { width: 390, height: 844 };

export function setViewport(viewport: Viewport): void {
  (window as unknown as TestWindow).happyDOM.setViewport(viewport);
}

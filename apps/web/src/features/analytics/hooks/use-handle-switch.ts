import { useState } from 'react';

interface SwitchState {
  /** The handle on screen (as given), or null. */
  handle: string | null;
  /** Whether it was reached from another handle and has not loaded yet. */
  switching: boolean;
}

function sameHandle(a: string | null, b: string | null): boolean {
  return (a?.toLowerCase() ?? null) === (b?.toLowerCase() ?? null);
}

/**
 * Whether the handle on screen was switched to from another one (sidebar, picker, removal or
 * `?handle=`) and its analytics have not loaded since. The first handle a page shows is no
 * switch. The view names the failed switch in its error ('Failed to switch to @x').
 */
export function useHandleSwitch(selectedHandle: string | null, loaded: boolean): boolean {
  const [state, setState] = useState<SwitchState>({ handle: selectedHandle, switching: false });
  let next = state;
  if (!sameHandle(state.handle, selectedHandle)) {
    next = { handle: selectedHandle, switching: state.handle !== null && selectedHandle !== null };
  }
  if (next.switching && loaded) next = { ...next, switching: false };
  // Adjusting state while rendering, from the props it follows (no effect, no extra paint).
  if (next !== state) setState(next);
  return next.switching;
}

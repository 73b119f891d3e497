import { renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useHandleSwitch } from './use-handle-switch';

function renderSwitch(handle: string | null, loaded = false) {
  return renderHook(
    (props: { handle: string | null; loaded: boolean }) =>
      useHandleSwitch(props.handle, props.loaded),
    { initialProps: { handle, loaded } },
  );
}

describe('useHandleSwitch', () => {
  it('counts no switch for the first handle shown, nor for the first one after none', () => {
    const view = renderSwitch('nasa');
    expect(view.result.current).toBe(false);
    const fromNone = renderSwitch(null);
    fromNone.rerender({ handle: 'nasa', loaded: false });
    expect(fromNone.result.current).toBe(false);
  });

  it('marks a switch to another handle until that handle has loaded', () => {
    const view = renderSwitch('nasa', true);
    view.rerender({ handle: 'spacex', loaded: false });
    expect(view.result.current).toBe(true);
    // Retried and failed again: still the switch that failed.
    view.rerender({ handle: 'spacex', loaded: false });
    expect(view.result.current).toBe(true);
    view.rerender({ handle: 'spacex', loaded: true });
    expect(view.result.current).toBe(false);
    // A later failure of the same handle is no switch any more.
    view.rerender({ handle: 'spacex', loaded: false });
    expect(view.result.current).toBe(false);
  });

  it('takes a change of case for the same handle, and an instant load for no failed switch', () => {
    const view = renderSwitch('nasa', true);
    view.rerender({ handle: 'NASA', loaded: false });
    expect(view.result.current).toBe(false);
    // A prefetched neighbour is there at once.
    view.rerender({ handle: 'spacex', loaded: true });
    expect(view.result.current).toBe(false);
  });
});

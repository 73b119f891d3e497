import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { preferencesStore } from './preferences';
import { RenderMonitor, logSlowRender, observeSlowInteractions } from './render-monitor';

afterEach(() => {
  preferencesStore.reset();
});

/** Renders for at least `ms` milliseconds. */
function Busy({ ms, label }: { ms: number; label: string }) {
  const start = performance.now();
  while (performance.now() - start < ms) {
    // Busy on purpose: a slow render.
  }
  return <p>{label}</p>;
}

const warnings = () => vi.spyOn(console, 'warn').mockImplementation(() => undefined);

describe('logSlowRender', () => {
  it('warns about renders over 16 ms only', () => {
    const warn = warnings();
    logSlowRender('page', 'mount', 16, 16, 0, 16);
    logSlowRender('page', 'update', 3.2, 10, 0, 3.2);
    expect(warn).not.toHaveBeenCalled();

    logSlowRender('page', 'update', 16.4, 20, 0, 16.4);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(
      '[perch] Slow render: "page" (update) took 16.4 ms, over the 16 ms budget',
      { id: 'page', phase: 'update', actualDuration: 16.4, baseDuration: 20 },
    );
  });

  it('is quiet when the log level hides warnings', () => {
    preferencesStore.update({ logLevel: 'error' });
    const warn = warnings();
    logSlowRender('page', 'mount', 40, 40, 0, 40);
    expect(warn).not.toHaveBeenCalled();
  });
});

/** A monitored tree that takes 25 ms to render. */
function slowPage(id: string) {
  return (
    <RenderMonitor id={id}>
      <Busy ms={25} label="Slow page" />
    </RenderMonitor>
  );
}

describe('RenderMonitor', () => {
  it('logs nothing while performance monitoring is off (the default)', () => {
    const warn = warnings();
    render(slowPage('page'));
    expect(screen.getByText('Slow page')).toBeInTheDocument();
    expect(warn).not.toHaveBeenCalled();
  });

  it('once opted in, logs slow renders of its tree and not fast ones', () => {
    preferencesStore.update({ performanceMonitoring: true });
    const warn = warnings();
    const view = render(
      <RenderMonitor id="page">
        <p>Fast page</p>
      </RenderMonitor>,
    );
    expect(screen.getByText('Fast page')).toBeInTheDocument();
    expect(warn).not.toHaveBeenCalled();

    view.rerender(slowPage('page'));
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatch(/^\[perch\] Slow render: "page" \(update\) took \d+/);
  });

  it('starts and stops with the preference', () => {
    const warn = warnings();
    render(slowPage('settings'));
    act(() => preferencesStore.update({ performanceMonitoring: true }));
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toContain('"settings" (mount)');

    act(() => preferencesStore.update({ performanceMonitoring: false }));
    expect(warn).toHaveBeenCalledTimes(1);
  });
});

describe('observeSlowInteractions', () => {
  /** The browser's Event Timing boundary: a PerformanceObserver that reports what a test feeds it. */
  class FakeObserver {
    static supportedEntryTypes = ['event'];
    static instances: FakeObserver[] = [];
    options: unknown;
    disconnected = false;
    constructor(readonly callback: (list: { getEntries(): unknown[] }) => void) {
      FakeObserver.instances.push(this);
    }
    observe(options: unknown) {
      this.options = options;
    }
    disconnect() {
      this.disconnected = true;
    }
    feed(entries: unknown[]) {
      this.callback({ getEntries: () => entries });
    }
  }

  afterEach(() => {
    vi.unstubAllGlobals();
    FakeObserver.instances = [];
  });

  it('logs interactions whose next paint came over 16 ms later, in production builds too', () => {
    vi.stubGlobal('PerformanceObserver', FakeObserver);
    const warn = warnings();
    const stop = observeSlowInteractions();
    const observer = FakeObserver.instances[0];
    expect(observer?.options).toMatchObject({ type: 'event', durationThreshold: 16 });
    observer?.feed([
      { name: 'click', duration: 16, processingStart: 1, processingEnd: 5 },
      { name: 'keydown', duration: 48, processingStart: 2, processingEnd: 32.5 },
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toContain('Slow frame after keydown: 48 ms');
    stop();
    expect(observer?.disconnected).toBe(true);
  });

  it('does nothing where the browser lacks Event Timing', () => {
    vi.stubGlobal('PerformanceObserver', undefined);
    expect(() => observeSlowInteractions()()).not.toThrow();
  });
});

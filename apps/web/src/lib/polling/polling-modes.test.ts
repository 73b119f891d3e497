import { describe, expect, it } from 'vitest';
import {
  activitySpeed,
  applyHiddenPage,
  applyUnchangedGrowth,
  modeInterval,
  networkMultiplier,
  nextPollInterval,
  pollingModeFor,
  unchangedGrowthFactor,
  type PollIntervalInput,
} from './polling-modes';

const SECOND = 1_000;

describe('modeInterval', () => {
  it.each([
    ['active', [2, 5, 15, 30]],
    ['background', [10, 30, 60, 120]],
    ['slow', [15, 45, 90, 180]],
    ['minimal', [30, 120, 300, 600]],
  ] as const)('%s polls at fast/normal/slow/idle = %j s', (mode, seconds) => {
    expect(modeInterval(mode, 'fast')).toBe(seconds[0] * SECOND);
    expect(modeInterval(mode, 'normal')).toBe(seconds[1] * SECOND);
    expect(modeInterval(mode, 'slow')).toBe(seconds[2] * SECOND);
    expect(modeInterval(mode, 'idle')).toBe(seconds[3] * SECOND);
  });

  it('offline does not poll', () => {
    expect(modeInterval('offline', 'fast')).toBeNull();
    expect(modeInterval('offline', 'idle')).toBeNull();
  });
});

describe('activitySpeed', () => {
  it('is fast under 10 s, normal under 60 s, slow under 5 min, else idle', () => {
    expect(activitySpeed(0)).toBe('fast');
    expect(activitySpeed(9_999)).toBe('fast');
    expect(activitySpeed(10_000)).toBe('normal');
    expect(activitySpeed(59_999)).toBe('normal');
    expect(activitySpeed(60_000)).toBe('slow');
    expect(activitySpeed(299_999)).toBe('slow');
    expect(activitySpeed(300_000)).toBe('idle');
  });
});

describe('networkMultiplier', () => {
  it('is x3 poor, x2 slow, x1 moderate, x0.8 good', () => {
    expect(networkMultiplier('poor')).toBe(3);
    expect(networkMultiplier('slow')).toBe(2);
    expect(networkMultiplier('moderate')).toBe(1);
    expect(networkMultiplier('good')).toBe(0.8);
  });
});

describe('pollingModeFor', () => {
  const visible = { online: true, visible: true, focused: true } as const;

  it('is offline without a connection, whatever else holds', () => {
    expect(pollingModeFor({ ...visible, online: false, networkQuality: 'good' })).toBe('offline');
    expect(
      pollingModeFor({ online: false, visible: false, focused: false, networkQuality: 'poor' }),
    ).toBe('offline');
  });

  it('is background for a hidden or unfocused tab', () => {
    expect(pollingModeFor({ ...visible, visible: false, networkQuality: 'good' })).toBe(
      'background',
    );
    expect(pollingModeFor({ ...visible, focused: false, networkQuality: 'poor' })).toBe(
      'background',
    );
  });

  it('follows the network in a visible tab: poor minimal, slow slow, moderate and good active', () => {
    expect(pollingModeFor({ ...visible, networkQuality: 'poor' })).toBe('minimal');
    expect(pollingModeFor({ ...visible, networkQuality: 'slow' })).toBe('slow');
    expect(pollingModeFor({ ...visible, networkQuality: 'moderate' })).toBe('active');
    expect(pollingModeFor({ ...visible, networkQuality: 'good' })).toBe('active');
  });
});

describe('adaptive growth', () => {
  it('grows 2x after 1 unchanged poll, 4x after 3, 12x after 6', () => {
    expect(unchangedGrowthFactor(0)).toBe(1);
    expect(unchangedGrowthFactor(1)).toBe(2);
    expect(unchangedGrowthFactor(2)).toBe(2);
    expect(unchangedGrowthFactor(3)).toBe(4);
    expect(unchangedGrowthFactor(5)).toBe(4);
    expect(unchangedGrowthFactor(6)).toBe(12);
    expect(unchangedGrowthFactor(50)).toBe(12);
  });

  it('stretches an interval and stops at 10 min', () => {
    expect(applyUnchangedGrowth(5_000, 0)).toBe(5_000);
    expect(applyUnchangedGrowth(5_000, 1)).toBe(10_000);
    expect(applyUnchangedGrowth(5_000, 3)).toBe(20_000);
    expect(applyUnchangedGrowth(5_000, 6)).toBe(60_000);
    expect(applyUnchangedGrowth(120_000, 6)).toBe(600_000);
  });

  it('never shortens an interval already beyond the cap', () => {
    expect(applyUnchangedGrowth(1_800_000, 6)).toBe(1_800_000);
  });
});

describe('applyHiddenPage', () => {
  it('triples the interval of normal and high priority polls on a hidden page', () => {
    expect(applyHiddenPage(5_000, true, 'normal')).toBe(15_000);
    expect(applyHiddenPage(5_000, true, 'high')).toBe(15_000);
  });

  it('leaves low priority and visible pages alone', () => {
    expect(applyHiddenPage(5_000, true, 'low')).toBe(5_000);
    expect(applyHiddenPage(5_000, false, 'high')).toBe(5_000);
  });
});

describe('nextPollInterval', () => {
  const base: PollIntervalInput = {
    online: true,
    visible: true,
    focused: true,
    networkQuality: 'moderate',
    sinceActivityMs: 0,
    unchangedPolls: 0,
    priority: 'normal',
  };

  it('is the active fast interval for a busy user on a moderate network', () => {
    expect(nextPollInterval(base)).toBe(2_000);
  });

  it('is 0.8 times faster on a good network', () => {
    expect(nextPollInterval({ ...base, networkQuality: 'good', sinceActivityMs: 30_000 })).toBe(
      4_000,
    );
  });

  it('uses the minimal table and x3 on a poor network', () => {
    expect(nextPollInterval({ ...base, networkQuality: 'poor' })).toBe(90_000);
  });

  it('is null offline', () => {
    expect(nextPollInterval({ ...base, online: false })).toBeNull();
  });

  it('combines background mode, adaptive growth and the hidden page factor', () => {
    // background normal 30 s, x1, 4x after 3 unchanged = 120 s, hidden x3 = 360 s.
    expect(
      nextPollInterval({ ...base, visible: false, sinceActivityMs: 20_000, unchangedPolls: 3 }),
    ).toBe(360_000);
    // Low priority is not tripled.
    expect(
      nextPollInterval({
        ...base,
        visible: false,
        sinceActivityMs: 20_000,
        unchangedPolls: 3,
        priority: 'low',
      }),
    ).toBe(120_000);
  });

  it('rounds to whole milliseconds', () => {
    expect(nextPollInterval({ ...base, networkQuality: 'good', sinceActivityMs: 60_000 })).toBe(
      12_000,
    );
  });
});

import { DUPLICATE_NOTIFICATION_WINDOW_MS } from '@perch/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  alertNewTweet,
  createNewTweetAlerter,
  getNotificationPermission,
  requestNotificationPermission,
} from './new-tweet-alerts';
import { createPreferencesStore, preferencesStore, type Preferences } from './preferences';

/** The browser's Notification API, replaced at its boundary. */
class FakeNotification {
  static permission: NotificationPermission = 'granted';
  static requestPermission = vi.fn(async (): Promise<NotificationPermission> => 'granted');
  static shown: FakeNotification[] = [];
  onclick: (() => void) | null = null;
  close = vi.fn();
  constructor(
    readonly title: string,
    readonly options: NotificationOptions,
  ) {
    FakeNotification.shown.push(this);
  }
}

/** The Web Audio API: counts the notes started. */
class FakeAudioContext {
  static instances: FakeAudioContext[] = [];
  state: AudioContextState = 'running';
  currentTime = 0;
  destination = {};
  notes: number[] = [];
  resume = vi.fn(async () => undefined);
  constructor() {
    FakeAudioContext.instances.push(this);
  }
  createOscillator() {
    const param = { setValueAtTime: vi.fn() };
    return {
      type: 'sine',
      frequency: param,
      connect: vi.fn(),
      start: vi.fn(() => this.notes.push(param.setValueAtTime.mock.calls[0]?.[0] as number)),
      stop: vi.fn(),
    };
  }
  createGain() {
    return {
      gain: { setValueAtTime: vi.fn(), exponentialRampToValueAtTime: vi.fn() },
      connect: vi.fn(),
    };
  }
}

const chimes = () => FakeAudioContext.instances.flatMap((context) => context.notes).length / 2;

function alerterWith(preferences: Partial<Preferences>) {
  const store = createPreferencesStore(null, null);
  store.update(preferences);
  return { alerter: createNewTweetAlerter({ preferences: store }), store };
}

beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2025-06-01T12:00:00Z') });
  FakeNotification.permission = 'granted';
  FakeNotification.shown = [];
  FakeNotification.requestPermission.mockClear();
  FakeAudioContext.instances = [];
  vi.stubGlobal('Notification', FakeNotification);
  vi.stubGlobal('AudioContext', FakeAudioContext);
});

afterEach(() => {
  vi.useRealTimers();
  preferencesStore.reset();
});

describe('new-tweet alerts', () => {
  it('shows a notification per handle, tagged so a burst replaces it, with no sound by default', () => {
    const { alerter } = alerterWith({});
    alerter.alert({ username: 'nasa', handleId: 7 });

    expect(FakeNotification.shown).toHaveLength(1);
    const [notification] = FakeNotification.shown;
    expect(notification?.title).toBe('New tweet from @nasa');
    expect(notification?.options).toMatchObject({
      tag: 'perch-tweet-7',
      body: 'Perch collected a new tweet from @nasa.',
    });
    expect(chimes()).toBe(0);

    // A click brings Perch forward and closes the notification.
    const focus = vi.spyOn(window, 'focus').mockImplementation(() => undefined);
    notification?.onclick?.();
    expect(focus).toHaveBeenCalled();
    expect(notification?.close).toHaveBeenCalled();
  });

  it('shows nothing with notifications turned off', () => {
    const { alerter } = alerterWith({ showNotifications: false });
    alerter.alert({ username: 'nasa', handleId: 7 });
    expect(FakeNotification.shown).toHaveLength(0);
    expect(chimes()).toBe(0);
  });

  it.each(['default', 'denied'] as const)(
    'shows no notification while the permission is %s (and never asks by itself)',
    (permission) => {
      FakeNotification.permission = permission;
      const { alerter } = alerterWith({});
      alerter.alert({ username: 'nasa', handleId: 7 });
      expect(FakeNotification.shown).toHaveLength(0);
      expect(FakeNotification.requestPermission).not.toHaveBeenCalled();
    },
  );

  it('chimes when sound is on, with or without the notification', () => {
    const { alerter, store } = alerterWith({ soundEnabled: true });
    alerter.alert({ username: 'nasa', handleId: 7 });
    expect(FakeNotification.shown).toHaveLength(1);
    expect(chimes()).toBe(1);
    expect(FakeAudioContext.instances[0]?.notes).toEqual([659.25, 880]);

    store.update({ showNotifications: false });
    vi.advanceTimersByTime(DUPLICATE_NOTIFICATION_WINDOW_MS);
    alerter.alert({ username: 'nasa', handleId: 7 });
    expect(FakeNotification.shown).toHaveLength(1);
    expect(chimes()).toBe(2);
    // One audio context for the page.
    expect(FakeAudioContext.instances).toHaveLength(1);
  });

  it('resumes audio the browser suspended', () => {
    const { alerter } = alerterWith({ soundEnabled: true, showNotifications: false });
    alerter.playChime();
    const context = FakeAudioContext.instances[0];
    if (!context) throw new Error('no audio context');
    context.state = 'suspended';
    alerter.playChime();
    expect(context.resume).toHaveBeenCalledTimes(1);
  });

  it('folds a burst for one handle into one alert per 2 s; other handles alert on their own', () => {
    expect(DUPLICATE_NOTIFICATION_WINDOW_MS).toBe(2_000);
    const { alerter } = alerterWith({ soundEnabled: true });
    alerter.alert({ username: 'nasa', handleId: 7 });
    vi.advanceTimersByTime(500);
    alerter.alert({ username: 'nasa', handleId: 7 });
    alerter.alert({ username: 'esa', handleId: 8 });
    vi.advanceTimersByTime(1_499);
    alerter.alert({ username: 'nasa', handleId: 7 });
    expect(FakeNotification.shown.map((n) => n.options.tag)).toEqual([
      'perch-tweet-7',
      'perch-tweet-8',
    ]);
    expect(chimes()).toBe(2);

    vi.advanceTimersByTime(1);
    alerter.alert({ username: 'nasa', handleId: 7 });
    expect(FakeNotification.shown).toHaveLength(3);
    expect(chimes()).toBe(3);
  });

  it('alerts again at once when the clock was set back since the last alert', () => {
    const { alerter } = alerterWith({ soundEnabled: true });
    alerter.alert({ username: 'nasa', handleId: 7 });
    vi.setSystemTime(Date.now() - 60 * 60_000);
    alerter.alert({ username: 'nasa', handleId: 7 });
    expect(FakeNotification.shown).toHaveLength(2);
    expect(chimes()).toBe(2);
  });

  it('copes with a browser without notifications or audio, and with a refusing constructor', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    vi.stubGlobal('Notification', undefined);
    vi.stubGlobal('AudioContext', undefined);
    const { alerter } = alerterWith({ soundEnabled: true });
    expect(() => alerter.alert({ username: 'nasa', handleId: 7 })).not.toThrow();

    vi.stubGlobal(
      'Notification',
      Object.assign(
        function IllegalConstructor() {
          throw new TypeError('Illegal constructor');
        },
        { permission: 'granted' },
      ),
    );
    vi.advanceTimersByTime(DUPLICATE_NOTIFICATION_WINDOW_MS);
    expect(() => alerter.alert({ username: 'nasa', handleId: 7 })).not.toThrow();
  });

  it("alertNewTweet follows this browser's preferences", () => {
    preferencesStore.update({ showNotifications: false });
    alertNewTweet({ username: 'nasa', handleId: 1 });
    expect(FakeNotification.shown).toHaveLength(0);

    preferencesStore.update({ showNotifications: true });
    alertNewTweet({ username: 'nasa', handleId: 1 });
    expect(FakeNotification.shown).toHaveLength(1);
  });
});

describe('notification permission', () => {
  it('says unsupported where there is no Notification API', async () => {
    vi.stubGlobal('Notification', undefined);
    expect(getNotificationPermission()).toBe('unsupported');
    await expect(requestNotificationPermission()).resolves.toBe('unsupported');
  });

  it('asks only while the browser has not been asked', async () => {
    FakeNotification.permission = 'default';
    FakeNotification.requestPermission.mockResolvedValueOnce('denied');
    await expect(requestNotificationPermission()).resolves.toBe('denied');
    expect(FakeNotification.requestPermission).toHaveBeenCalledTimes(1);

    FakeNotification.permission = 'denied';
    expect(getNotificationPermission()).toBe('denied');
    await expect(requestNotificationPermission()).resolves.toBe('denied');
    FakeNotification.permission = 'granted';
    await expect(requestNotificationPermission()).resolves.toBe('granted');
    expect(FakeNotification.requestPermission).toHaveBeenCalledTimes(1);
  });
});

import { DUPLICATE_NOTIFICATION_WINDOW_MS } from '@perch/shared';
import { APP_BASE_PATH } from '@/lib/config';
import { logger } from '@/lib/logger';
import { preferencesStore, type PreferencesStore } from './preferences';

/** A new tweet of a monitored handle, as the live-events stream reports it. */
export interface NewTweetEvent {
  /** The X username, without the @. */
  username: string;
  handleId: number;
}

/** The browser's notification permission, or 'unsupported' where there is no Notification API. */
export type NotificationPermissionState = NotificationPermission | 'unsupported';

function notificationApi(): typeof Notification | null {
  return typeof globalThis.Notification === 'function' ? globalThis.Notification : null;
}

/** What the browser currently allows for notifications. */
export function getNotificationPermission(): NotificationPermissionState {
  return notificationApi()?.permission ?? 'unsupported';
}

/**
 * Asks the browser for notification permission when it has not been asked yet; otherwise answers
 * the current state. Call it from a click: browsers ignore requests made without one.
 */
export async function requestNotificationPermission(): Promise<NotificationPermissionState> {
  const api = notificationApi();
  if (!api) return 'unsupported';
  if (api.permission !== 'default') return api.permission;
  try {
    return await api.requestPermission();
  } catch (error) {
    logger.warn('Could not ask for notification permission', error);
    return api.permission;
  }
}

type AudioContextConstructor = typeof AudioContext;

function audioContextApi(): AudioContextConstructor | null {
  const scope = globalThis as typeof globalThis & { webkitAudioContext?: AudioContextConstructor };
  return scope.AudioContext ?? scope.webkitAudioContext ?? null;
}

/** The chime: two soft sine notes, a fourth apart (E5, A5). */
const CHIME_NOTES_HZ = [659.25, 880] as const;
const CHIME_NOTE_GAP_S = 0.12;
const CHIME_NOTE_LENGTH_S = 0.45;
const CHIME_PEAK_GAIN = 0.08;

export interface NewTweetAlerterOptions {
  /** The preferences to follow; this browser's by default. */
  preferences?: PreferencesStore;
  now?: () => number;
  /** Alerts for one handle inside this window collapse into the first. */
  windowMs?: number;
}

export interface NewTweetAlerter {
  /** Alerts for a new tweet as the preferences ask, at most once per handle per window. */
  alert(event: NewTweetEvent): void;
  /** Plays the chime now (also a preview, which unlocks audio when called from a click). */
  playChime(): void;
}

/** New-tweet alerts: a browser notification and a chime, each as the preferences say. */
export function createNewTweetAlerter({
  preferences = preferencesStore,
  now = () => Date.now(),
  windowMs = DUPLICATE_NOTIFICATION_WINDOW_MS,
}: NewTweetAlerterOptions = {}): NewTweetAlerter {
  const lastAlertAt = new Map<number, number>();
  let audioContext: AudioContext | null = null;

  function playChime(): void {
    const AudioContextApi = audioContextApi();
    if (!AudioContextApi) return;
    try {
      audioContext ??= new AudioContextApi();
      const context = audioContext;
      // Browsers start audio suspended until the page has had a click; resume() then succeeds.
      if (context.state === 'suspended') void context.resume().catch(() => undefined);
      const start = context.currentTime;
      CHIME_NOTES_HZ.forEach((frequency, index) => {
        const at = start + index * CHIME_NOTE_GAP_S;
        const oscillator = context.createOscillator();
        const gain = context.createGain();
        oscillator.type = 'sine';
        oscillator.frequency.setValueAtTime(frequency, at);
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(CHIME_PEAK_GAIN, at + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + CHIME_NOTE_LENGTH_S);
        oscillator.connect(gain);
        gain.connect(context.destination);
        oscillator.start(at);
        oscillator.stop(at + CHIME_NOTE_LENGTH_S + 0.05);
      });
    } catch (error) {
      logger.debug('Could not play the new-tweet chime', error);
    }
  }

  function showNotification({ username, handleId }: NewTweetEvent): void {
    const api = notificationApi();
    if (!api || api.permission !== 'granted') return;
    try {
      const notification = new api(`New tweet from @${username}`, {
        body: `Perch collected a new tweet from @${username}.`,
        // One notification per handle: a burst replaces it rather than stacking up.
        tag: `perch-tweet-${handleId}`,
        icon: `${APP_BASE_PATH}favicon.svg`,
      });
      notification.onclick = () => {
        window.focus();
        notification.close();
      };
    } catch (error) {
      // Some mobile browsers only show notifications through a service worker.
      logger.warn('Could not show a new-tweet notification', error);
    }
  }

  return {
    alert(event) {
      const { showNotifications, soundEnabled } = preferences.getSnapshot();
      if (!showNotifications && !soundEnabled) return;
      const at = now();
      const last = lastAlertAt.get(event.handleId);
      // A clock set back since the last alert does not silence the handle until it catches up.
      if (last !== undefined && at >= last && at - last < windowMs) {
        logger.debug(`New tweet from @${event.username} folded into the previous alert`);
        return;
      }
      lastAlertAt.set(event.handleId, at);
      if (showNotifications) showNotification(event);
      if (soundEnabled) playChime();
    },
    playChime,
  };
}

const newTweetAlerter = createNewTweetAlerter();

/**
 * Alerts this browser to a new tweet (call it in the leading tab only, so one tab alerts): a
 * notification when notifications are on and allowed, a chime when sound is on, at most once per
 * handle every 2 s (DUPLICATE_NOTIFICATION_WINDOW_MS).
 */
export function alertNewTweet(event: NewTweetEvent): void {
  newTweetAlerter.alert(event);
}

/** Plays the new-tweet chime, e.g. as a preview when sound is turned on. */
export function playNewTweetChime(): void {
  newTweetAlerter.playChime();
}

import { PREFERENCE_DEFAULTS } from '@perch/shared';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PREFERENCES_STORAGE_KEY, preferencesStore } from '@/lib/preferences';
import { renderRoute } from '@/test/render';
import { PreferencesCard, formatRefreshInterval } from './preferences-card';

const COLOR_SCHEME_KEY = 'mantine-color-scheme-value';

/** The browser's Notification API, replaced at its boundary. */
class FakeNotification {
  static permission: NotificationPermission = 'default';
  static requestPermission = vi.fn(async (): Promise<NotificationPermission> => 'granted');
}

function renderCard() {
  renderRoute('/settings', <PreferencesCard />);
  const card = screen.getByTestId('preferences-card');
  const user = userEvent.setup({ delay: null });
  // A switch's accessible name is its label followed by its description.
  const control = (label: string) =>
    within(card).getByRole('switch', { name: (name) => name.startsWith(label) });
  const select = (name: string) => within(card).getByRole('combobox', { name });
  return { card, user, control, select };
}

function saved(): unknown {
  return JSON.parse(window.localStorage.getItem(PREFERENCES_STORAGE_KEY) ?? 'null');
}

beforeEach(() => {
  FakeNotification.permission = 'default';
  FakeNotification.requestPermission.mockReset();
  FakeNotification.requestPermission.mockResolvedValue('granted');
});

afterEach(() => {
  preferencesStore.reset();
});

describe('Preferences card', () => {
  it('shows the defaults, saved in this browser', () => {
    const { card, control, select } = renderCard();
    expect(within(card).getByRole('heading', { name: 'Preferences' })).toBeVisible();
    expect(control('Auto refresh')).toBeChecked();
    expect(select('Refresh interval')).toHaveValue('30 seconds');
    expect(select('Refresh interval')).toBeEnabled();
    expect(control('Show notifications')).toBeChecked();
    expect(control('Sound')).not.toBeChecked();
    expect(control('Compact mode')).not.toBeChecked();
    expect(select('Log level')).toHaveValue('Info (default)');
    expect(control('Performance monitoring')).not.toBeChecked();
    expect(
      within(card).getByText(/Renders slower than 16 ms are logged to the browser console/),
    ).toBeVisible();
    expect(within(card).getByText(/Saved in this browser/)).toBeVisible();
    expect(within(card).getByRole('group', { name: 'Advanced' })).toBeVisible();
  });

  it('saves each switch at once', async () => {
    const { user, control } = renderCard();
    await user.click(control('Compact mode'));
    expect(control('Compact mode')).toBeChecked();
    expect(preferencesStore.getSnapshot().compactMode).toBe(true);
    expect(saved()).toMatchObject({ compactMode: true });

    await user.click(control('Performance monitoring'));
    await user.click(control('Show notifications'));
    expect(preferencesStore.getSnapshot()).toMatchObject({
      performanceMonitoring: true,
      showNotifications: false,
    });
    expect(saved()).toMatchObject({ performanceMonitoring: true, showNotifications: false });
  });

  it('picks the refresh interval, which auto refresh off disables', async () => {
    const { user, control, select } = renderCard();
    await user.click(select('Refresh interval'));
    await user.click(await screen.findByRole('option', { name: '2 minutes' }));
    expect(preferencesStore.getSnapshot().refreshInterval).toBe(120_000);
    expect(select('Refresh interval')).toHaveValue('2 minutes');

    await user.click(control('Auto refresh'));
    expect(preferencesStore.getSnapshot().autoRefresh).toBe(false);
    expect(select('Refresh interval')).toBeDisabled();
    expect(screen.getByText('Turn on auto refresh to choose an interval')).toBeVisible();

    await user.click(control('Auto refresh'));
    expect(select('Refresh interval')).toBeEnabled();
  });

  it('picks the log level', async () => {
    const { user, select } = renderCard();
    await user.click(select('Log level'));
    await user.click(await screen.findByRole('option', { name: 'Debug: everything' }));
    expect(preferencesStore.getSnapshot().logLevel).toBe('debug');
  });

  it('switches dark mode through the theme, which keeps it in this browser', async () => {
    const { user, control } = renderCard();
    const root = document.documentElement;
    // The test provider starts light; the app's starts dark.
    expect(control('Dark mode')).not.toBeChecked();
    await user.click(control('Dark mode'));
    expect(control('Dark mode')).toBeChecked();
    expect(root).toHaveAttribute('data-mantine-color-scheme', 'dark');
    expect(window.localStorage.getItem(COLOR_SCHEME_KEY)).toBe('dark');

    await user.click(control('Dark mode'));
    expect(root).toHaveAttribute('data-mantine-color-scheme', 'light');
    expect(window.localStorage.getItem(COLOR_SCHEME_KEY)).toBe('light');
  });

  it('resets everything, dark mode included, to the defaults', async () => {
    const { user, control, card } = renderCard();
    await user.click(control('Compact mode'));
    await user.click(control('Auto refresh'));
    await user.click(control('Dark mode'));
    await user.click(within(card).getByRole('button', { name: 'Reset to defaults' }));

    expect(preferencesStore.getSnapshot()).toEqual(PREFERENCE_DEFAULTS);
    expect(window.localStorage.getItem(PREFERENCES_STORAGE_KEY)).toBeNull();
    expect(window.localStorage.getItem(COLOR_SCHEME_KEY)).toBeNull();
    expect(control('Compact mode')).not.toBeChecked();
    expect(control('Auto refresh')).toBeChecked();
  });

  it('plays the chime as a preview when sound is turned on', async () => {
    const createOscillator = vi.fn(() => ({
      type: 'sine',
      frequency: { setValueAtTime: vi.fn() },
      connect: vi.fn(),
      start: vi.fn(),
      stop: vi.fn(),
    }));
    vi.stubGlobal(
      'AudioContext',
      class {
        state = 'running';
        currentTime = 0;
        destination = {};
        createOscillator = createOscillator;
        createGain = () => ({
          gain: { setValueAtTime: vi.fn(), exponentialRampToValueAtTime: vi.fn() },
          connect: vi.fn(),
        });
      },
    );
    const { user, control } = renderCard();
    await user.click(control('Sound'));
    expect(preferencesStore.getSnapshot().soundEnabled).toBe(true);
    expect(createOscillator).toHaveBeenCalledTimes(2);
    await user.click(control('Sound'));
    expect(createOscillator).toHaveBeenCalledTimes(2);
  });

  it('says when the browser has no notifications', () => {
    const { card } = renderCard();
    expect(within(card).getByTestId('notification-permission')).toHaveTextContent(
      'This browser does not support notifications.',
    );
  });

  it('asks for permission when notifications are turned on, and says when they are blocked', async () => {
    vi.stubGlobal('Notification', FakeNotification);
    preferencesStore.update({ showNotifications: false });
    FakeNotification.requestPermission.mockImplementation(async () => {
      FakeNotification.permission = 'denied';
      return 'denied';
    });
    const { card, user, control } = renderCard();
    expect(within(card).queryByTestId('notification-permission')).toBeNull();

    await user.click(control('Show notifications'));
    expect(FakeNotification.requestPermission).toHaveBeenCalledTimes(1);
    expect(await within(card).findByTestId('notification-permission')).toHaveTextContent(
      'This browser blocks notifications from Perch',
    );
    expect(preferencesStore.getSnapshot().showNotifications).toBe(true);

    // Off, the note has nothing to explain; on again, the browser is not asked twice.
    await user.click(control('Show notifications'));
    expect(within(card).queryByTestId('notification-permission')).toBeNull();
    await user.click(control('Show notifications'));
    expect(FakeNotification.requestPermission).toHaveBeenCalledTimes(1);
  });

  it('reads the permission again when the person comes back from the site settings', async () => {
    vi.stubGlobal('Notification', FakeNotification);
    FakeNotification.permission = 'denied';
    const { card } = renderCard();
    expect(within(card).getByTestId('notification-permission')).toHaveTextContent('blocks');
    FakeNotification.permission = 'granted';
    window.dispatchEvent(new FocusEvent('focus'));
    await waitFor(() => expect(within(card).queryByTestId('notification-permission')).toBeNull());
  });

  it('offers to allow notifications that are on but not yet allowed', async () => {
    vi.stubGlobal('Notification', FakeNotification);
    const { card, user } = renderCard();
    const note = within(card).getByTestId('notification-permission');
    expect(note).toHaveTextContent('not been allowed to show notifications yet');
    await user.click(within(note).getByRole('button', { name: 'Allow notifications' }));
    expect(FakeNotification.requestPermission).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(within(card).queryByTestId('notification-permission')).toBeNull());
  });

  it('follows a change made in another tab', async () => {
    const { control } = renderCard();
    window.localStorage.setItem(
      PREFERENCES_STORAGE_KEY,
      JSON.stringify({ ...PREFERENCE_DEFAULTS, soundEnabled: true }),
    );
    window.dispatchEvent(
      new StorageEvent('storage', {
        key: PREFERENCES_STORAGE_KEY,
        storageArea: window.localStorage,
      }),
    );
    await waitFor(() => expect(control('Sound')).toBeChecked());
  });
});

describe('formatRefreshInterval', () => {
  it.each([
    [15_000, '15 seconds'],
    [30_000, '30 seconds'],
    [60_000, '1 minute'],
    [120_000, '2 minutes'],
    [300_000, '5 minutes'],
  ])('%d ms reads %s', (ms, text) => {
    expect(formatRefreshInterval(ms)).toBe(text);
  });
});

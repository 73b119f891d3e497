import {
  Alert,
  Button,
  Divider,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import {
  LOG_LEVELS,
  PREFERENCE_DEFAULTS,
  REFRESH_INTERVAL_CHOICES_MS,
  SLOW_RENDER_THRESHOLD_MS,
  type LogLevel,
} from '@perch/shared';
import { IconAdjustmentsHorizontal, IconBellOff, IconRestore } from '@tabler/icons-react';
import { useEffect, useState, type ChangeEvent, type ReactNode } from 'react';
import {
  getNotificationPermission,
  playNewTweetChime,
  preferencesStore,
  requestNotificationPermission,
  usePreferences,
  type NotificationPermissionState,
  type Preferences,
} from '@/lib/preferences';
import { SettingsCard } from './settings-card';
import { SETTINGS_GRID_COLUMNS } from './settings-grid';

/** '15 seconds', '1 minute', '5 minutes'. */
export function formatRefreshInterval(ms: number): string {
  const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  return ms < 60_000 ? plural(ms / 1000, 'second') : plural(ms / 60_000, 'minute');
}

const REFRESH_INTERVAL_OPTIONS = REFRESH_INTERVAL_CHOICES_MS.map((ms) => ({
  value: String(ms),
  label: formatRefreshInterval(ms),
}));

const LOG_LEVEL_LABELS: Record<LogLevel, string> = {
  debug: 'Debug: everything',
  info: 'Info',
  warn: 'Warnings and errors',
  error: 'Errors only',
};

const LOG_LEVEL_OPTIONS = LOG_LEVELS.map((level) => ({
  value: level,
  label:
    level === PREFERENCE_DEFAULTS.logLevel
      ? `${LOG_LEVEL_LABELS[level]} (default)`
      : LOG_LEVEL_LABELS[level],
}));

function isLogLevel(value: string | null): value is LogLevel {
  return (LOG_LEVELS as readonly (string | null)[]).includes(value);
}

const checkedOf = (event: ChangeEvent<HTMLInputElement>) => event.currentTarget.checked;

/** The preferences that are simply on or off. */
type OnOffPreference = 'autoRefresh' | 'compactMode' | 'performanceMonitoring';

/** A switch for one on/off preference, saved as soon as it is flipped. */
function PreferenceSwitch({
  name,
  label,
  description,
}: {
  name: OnOffPreference;
  label: string;
  description: string;
}) {
  const [preferences, updatePreferences] = usePreferences();
  const handleChange = (event: ChangeEvent<HTMLInputElement>) => {
    const patch: Partial<Preferences> = {};
    patch[name] = checkedOf(event);
    updatePreferences(patch);
  };
  return (
    <Switch
      label={label}
      description={description}
      checked={preferences[name]}
      onChange={handleChange}
    />
  );
}

/**
 * The client preferences of this browser (docs/spec-notes.md, Entities): background
 * refresh, new-tweet alerts, compact and dark mode, and the console's log level and render
 * monitoring. Every change is saved at once, in this browser only (other tabs follow).
 */
export function PreferencesCard() {
  const [preferences, updatePreferences] = usePreferences();
  const { setColorScheme, clearColorScheme } = useMantineColorScheme();
  const colorScheme = useComputedColorScheme('dark', { getInitialValueInEffect: false });
  const [permission, setPermission] =
    useState<NotificationPermissionState>(getNotificationPermission);

  // The permission can change in the browser's site settings: read it again on coming back.
  useEffect(() => {
    const refreshPermission = () => setPermission(getNotificationPermission());
    window.addEventListener('focus', refreshPermission);
    return () => window.removeEventListener('focus', refreshPermission);
  }, []);

  const askPermission = () => {
    void requestNotificationPermission().then(setPermission);
  };

  const handleNotificationsChange = (event: ChangeEvent<HTMLInputElement>) => {
    const showNotifications = checkedOf(event);
    updatePreferences({ showNotifications });
    // Asked inside the click: browsers ignore a permission request made without one.
    if (showNotifications && permission === 'default') askPermission();
  };

  const handleSoundChange = (event: ChangeEvent<HTMLInputElement>) => {
    const soundEnabled = checkedOf(event);
    updatePreferences({ soundEnabled });
    // A preview, and the click lets the browser play later chimes in the background.
    if (soundEnabled) playNewTweetChime();
  };

  const handleReset = () => {
    preferencesStore.reset();
    clearColorScheme();
  };

  return (
    <SettingsCard
      title="Preferences"
      icon={IconAdjustmentsHorizontal}
      color="grape"
      description="How Perch refreshes, alerts and looks in this browser"
      testId="preferences-card"
    >
      <Stack gap="lg">
        <SimpleGrid type="container" cols={SETTINGS_GRID_COLUMNS} spacing="xl" verticalSpacing="lg">
          <PreferenceGroup label="Refresh">
            <PreferenceSwitch
              name="autoRefresh"
              label="Auto refresh"
              description="Refreshes data in the background while Perch is open"
            />
            <Select
              label="Refresh interval"
              description={
                preferences.autoRefresh
                  ? 'How often the background refresh runs'
                  : 'Turn on auto refresh to choose an interval'
              }
              data={REFRESH_INTERVAL_OPTIONS}
              value={String(preferences.refreshInterval)}
              onChange={(value) => {
                if (value) updatePreferences({ refreshInterval: Number(value) });
              }}
              disabled={!preferences.autoRefresh}
              allowDeselect={false}
            />
          </PreferenceGroup>

          <PreferenceGroup label="Alerts">
            <Switch
              label="Show notifications"
              description="A browser notification when a monitored handle posts a new tweet"
              checked={preferences.showNotifications}
              onChange={handleNotificationsChange}
            />
            <NotificationPermissionNote
              permission={permission}
              wanted={preferences.showNotifications}
              onAllow={askPermission}
            />
            <Switch
              label="Sound"
              description="A soft chime when a new tweet arrives"
              checked={preferences.soundEnabled}
              onChange={handleSoundChange}
            />
          </PreferenceGroup>

          <PreferenceGroup label="Appearance">
            <PreferenceSwitch
              name="compactMode"
              label="Compact mode"
              description="Tighter spacing and smaller tables, to fit more on the screen"
            />
            <Switch
              label="Dark mode"
              description="The default; turn it off for the light theme"
              checked={colorScheme === 'dark'}
              onChange={(event) => setColorScheme(checkedOf(event) ? 'dark' : 'light')}
            />
          </PreferenceGroup>

          <PreferenceGroup label="Advanced">
            <Select
              label="Log level"
              description="The least important messages written to the browser console"
              data={LOG_LEVEL_OPTIONS}
              value={preferences.logLevel}
              onChange={(value) => {
                if (isLogLevel(value)) updatePreferences({ logLevel: value });
              }}
              allowDeselect={false}
            />
            <PreferenceSwitch
              name="performanceMonitoring"
              label="Performance monitoring"
              description={`Renders slower than ${SLOW_RENDER_THRESHOLD_MS} ms are logged to the browser console`}
            />
          </PreferenceGroup>
        </SimpleGrid>

        <Divider />
        <Group justify="space-between" gap="sm">
          <Text size="xs" c="dimmed">
            Saved in this browser as you change them.
          </Text>
          <Button
            variant="default"
            size="xs"
            leftSection={<IconRestore size={14} />}
            onClick={handleReset}
          >
            Reset to defaults
          </Button>
        </Group>
      </Stack>
    </SettingsCard>
  );
}

/** A titled group of preferences: a divider carrying its name, then its controls. */
function PreferenceGroup({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap="md" role="group" aria-label={label}>
      <Divider label={label} labelPosition="left" />
      {children}
    </Stack>
  );
}

interface NotificationPermissionNoteProps {
  permission: NotificationPermissionState;
  /** Notifications are turned on in the preferences. */
  wanted: boolean;
  onAllow: () => void;
}

/** Why notifications will not show although they are on, and the way out when there is one. */
function NotificationPermissionNote({
  permission,
  wanted,
  onAllow,
}: NotificationPermissionNoteProps) {
  if (permission === 'unsupported') {
    return <PermissionAlert>This browser does not support notifications.</PermissionAlert>;
  }
  if (!wanted || permission === 'granted') return null;
  if (permission === 'denied') {
    return (
      <PermissionAlert>
        This browser blocks notifications from Perch. Allow them in the site settings (the icon
        beside the address) to get new-tweet alerts.
      </PermissionAlert>
    );
  }
  return (
    <Group gap="xs" justify="space-between" data-testid="notification-permission">
      <Text size="xs" c="dimmed" style={{ flex: '1 1 12rem' }}>
        The browser has not been allowed to show notifications yet.
      </Text>
      <Button variant="light" size="xs" onClick={onAllow}>
        Allow notifications
      </Button>
    </Group>
  );
}

function PermissionAlert({ children }: { children: ReactNode }) {
  return (
    <Alert
      color="yellow"
      variant="light"
      p="xs"
      // Not an alert to announce: a standing note beside the switch it explains.
      role="note"
      icon={<IconBellOff size={16} />}
      data-testid="notification-permission"
    >
      <Text size="xs">{children}</Text>
    </Alert>
  );
}

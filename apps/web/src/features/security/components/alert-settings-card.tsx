import { Stack, Switch } from '@mantine/core';
import { SECURITY_MESSAGES } from '@perch/shared';
import { useSecuritySettingsQuery } from '../api/get-security-settings';
import {
  useUpdateSecuritySettingsMutation,
  type SecuritySettingsChange,
} from '../api/update-security-settings';
import { useOutcome } from '../hooks/use-outcome';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { SecuritySection } from './security-section';
import { SettingsStates } from './settings-states';

type AlertSetting = keyof Required<SecuritySettingsChange>;

const SWITCHES: { key: AlertSetting; label: string; description: string }[] = [
  {
    key: 'alertOnNewDevice',
    label: SECURITY_TEXTS.alertOnNewDevice,
    description: SECURITY_TEXTS.alertOnNewDeviceHelp,
  },
  {
    key: 'alertOnFailedLogins',
    label: SECURITY_TEXTS.alertOnFailedLogins,
    description: SECURITY_TEXTS.alertOnFailedLoginsHelp,
  },
];

/**
 * Which suspicious activity raises an alert. A switch flips at once and is saved in the
 * background; if saving fails it flips back and the card says why.
 */
export function AlertSettingsCard() {
  const settingsQuery = useSecuritySettingsQuery();
  const updateMutation = useUpdateSecuritySettingsMutation();
  const outcome = useOutcome();
  const settings = settingsQuery.data;

  const handleChange = (key: AlertSetting, value: boolean) => {
    outcome.dismiss();
    updateMutation.mutate(
      { [key]: value },
      {
        onSuccess: ({ message }) => outcome.success(message ?? SECURITY_MESSAGES.settingsSaved),
        onError: (error) => outcome.failed(SECURITY_TEXTS.saveSettingsFailed, error),
      },
    );
  };

  return (
    <SecuritySection section="alerts" outcome={outcome}>
      <SettingsStates
        query={settingsQuery}
        loadingLabel="Loading security alerts"
        errorTestId="alert-settings-error"
      />
      {settings ? (
        <Stack gap="md">
          {SWITCHES.map((entry) => (
            <Switch
              key={entry.key}
              label={entry.label}
              description={entry.description}
              checked={settings[entry.key]}
              onChange={(event) => handleChange(entry.key, event.currentTarget.checked)}
            />
          ))}
        </Stack>
      ) : null}
    </SecuritySection>
  );
}

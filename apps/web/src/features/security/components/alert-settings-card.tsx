import { Stack, Switch } from '@mantine/core';
import { SECURITY_MESSAGES } from '@perch/shared';
import { IconBellRinging } from '@tabler/icons-react';
import { IconSection } from '@/components/icon-section';
import { EmptyText, QueryStates } from '@/components/section-states';
import { failureReason } from '@/lib/failure-text';
import { useSecuritySettingsQuery } from '../api/get-security-settings';
import {
  useUpdateSecuritySettingsMutation,
  type SecuritySettingsChange,
} from '../api/update-security-settings';
import { useOutcome } from '../hooks/use-outcome';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { OutcomeAlert } from './outcome-alert';

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
        onError: (error) =>
          outcome.error(
            SECURITY_TEXTS.saveSettingsFailed,
            failureReason(error, SECURITY_TEXTS.saveSettingsFailed),
          ),
      },
    );
  };

  return (
    <IconSection
      title={SECURITY_TEXTS.alertsTitle}
      icon={IconBellRinging}
      color="yellow"
      description={SECURITY_TEXTS.alertsDescription}
      testId="security-alert-settings"
    >
      <OutcomeAlert outcome={outcome.outcome} onDismiss={outcome.dismiss} testId="alerts-outcome" />
      <QueryStates
        query={settingsQuery}
        loadingLabel="Loading security alerts"
        skeletonRows={2}
        errorTitle={SECURITY_TEXTS.loadSettingsFailed}
        errorTestId="alert-settings-error"
      />
      {settings === null ? <EmptyText>{SECURITY_TEXTS.settingsUnavailable}</EmptyText> : null}
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
    </IconSection>
  );
}

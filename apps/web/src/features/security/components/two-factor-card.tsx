import {
  Badge,
  Box,
  Button,
  Code,
  Group,
  Image,
  Paper,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { SECURITY_MESSAGES, TOTP_DIGITS, type TwoFactorResponse } from '@perch/shared';
import { IconDeviceMobileMessage } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { IconSection } from '@/components/icon-section';
import { EmptyText, QueryStates } from '@/components/section-states';
import { failureReason } from '@/lib/failure-text';
import { useSecuritySettingsQuery } from '../api/get-security-settings';
import { useTwoFactorMutation } from '../api/two-factor';
import { useOutcome } from '../hooks/use-outcome';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { RecoveryCodes } from './recovery-codes';
import { OutcomeAlert } from './outcome-alert';

type Step =
  | { kind: 'idle' }
  | { kind: 'setup'; secret: string; qrCodeDataUrl: string | null; message: string }
  | { kind: 'codes'; codes: string[]; message: string }
  | { kind: 'disable' };

const TOTP_PATTERN = new RegExp(`^\\d{${TOTP_DIGITS}}$`);

/** A code as typed, without the spaces apps show in the middle of it. */
function cleanCode(code: string): string {
  return code.replace(/\s+/g, '');
}

interface SetupStepProps {
  step: Extract<Step, { kind: 'setup' }>;
  pending: boolean;
  onVerify: (code: string, onFailed: (reason: string) => void) => void;
  onCancel: () => void;
}

/** Scan the QR code (or type the key), then prove it with a first code. */
function SetupStep({ step, pending, onVerify, onCancel }: SetupStepProps) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const cleaned = cleanCode(code);
    if (!TOTP_PATTERN.test(cleaned)) {
      setError(SECURITY_MESSAGES.twoFactorCodeRequired);
      return;
    }
    setError(null);
    onVerify(cleaned, setError);
  };

  return (
    <form onSubmit={handleSubmit} aria-label="Set up two-factor sign-in" noValidate>
      <Stack gap="sm">
        <Text size="sm">{step.message}</Text>
        <Group align="flex-start" gap="md">
          {step.qrCodeDataUrl ? (
            <Paper bg="white" p={6} radius="md" withBorder>
              <Image src={step.qrCodeDataUrl} alt={SECURITY_TEXTS.qrAlt} w={168} h={168} />
            </Paper>
          ) : null}
          <Stack gap={4} miw={0} style={{ flex: '1 1 12rem' }}>
            <Text size="xs" c="dimmed">
              {SECURITY_TEXTS.manualSecret}
            </Text>
            <Code
              block
              fz="sm"
              data-testid="totp-secret"
              style={{ letterSpacing: 1, overflowWrap: 'anywhere', whiteSpace: 'normal' }}
            >
              {step.secret}
            </Code>
          </Stack>
        </Group>
        <TextInput
          label={SECURITY_TEXTS.codeLabel}
          value={code}
          onChange={(event) => setCode(event.currentTarget.value)}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={TOTP_DIGITS + 2}
          maw={220}
          error={error}
          data-autofocus
        />
        <Group gap="xs">
          <Button type="submit" loading={pending}>
            {SECURITY_TEXTS.verifyAndTurnOn}
          </Button>
          <Button variant="default" onClick={onCancel} disabled={pending}>
            {SECURITY_TEXTS.cancel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

interface DisableStepProps {
  pending: boolean;
  onDisable: (code: string, onFailed: (reason: string) => void) => void;
  onCancel: () => void;
}

/** Turning it off asks for proof: a current code or an unused recovery code. */
function DisableStep({ pending, onDisable, onCancel }: DisableStepProps) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const cleaned = cleanCode(code);
    if (cleaned === '') {
      setError(SECURITY_MESSAGES.twoFactorCodeRequired);
      return;
    }
    setError(null);
    onDisable(cleaned, setError);
  };

  return (
    <form onSubmit={handleSubmit} aria-label="Turn off two-factor sign-in" noValidate>
      <Stack gap="sm">
        <Text size="sm">{SECURITY_TEXTS.turnOffHelp}</Text>
        <TextInput
          label={SECURITY_TEXTS.turnOffCodeLabel}
          value={code}
          onChange={(event) => setCode(event.currentTarget.value)}
          autoComplete="one-time-code"
          maxLength={64}
          maw={260}
          error={error}
          data-autofocus
        />
        <Group gap="xs">
          <Button type="submit" color="red" loading={pending}>
            {SECURITY_TEXTS.confirmTurnOff}
          </Button>
          <Button variant="default" onClick={onCancel} disabled={pending}>
            {SECURITY_TEXTS.cancel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * Two-factor sign-in: off, 'Turn on' starts the set-up (QR code and key, then a first code);
 * the recovery codes show once when it turns on; on, it tells how many recovery codes are left
 * and 'Turn off' asks for a code.
 */
export function TwoFactorCard() {
  const settingsQuery = useSecuritySettingsQuery();
  const twoFactorMutation = useTwoFactorMutation();
  const outcome = useOutcome();
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const settings = settingsQuery.data;
  const enabled = settings?.twoFactorEnabled ?? false;

  const failed = (error: Error) => failureReason(error, SECURITY_TEXTS.twoFactorFailed);

  const handleStart = () => {
    outcome.dismiss();
    twoFactorMutation.mutate(
      { enabled: true },
      {
        onSuccess: ({ data, message }) => setStep(setupStep(data, message)),
        onError: (error) => outcome.error(SECURITY_TEXTS.twoFactorFailed, failed(error)),
      },
    );
  };

  const handleVerify = (code: string, onFailed: (reason: string) => void) => {
    if (step.kind !== 'setup') return;
    twoFactorMutation.mutate(
      { enabled: true, totpSecret: step.secret, code },
      {
        onSuccess: ({ data, message }) =>
          setStep({
            kind: 'codes',
            codes: data.recoveryCodes ?? [],
            message: message ?? SECURITY_MESSAGES.twoFactorEnabled,
          }),
        onError: (error) => onFailed(failed(error)),
      },
    );
  };

  const handleDisable = (code: string, onFailed: (reason: string) => void) => {
    twoFactorMutation.mutate(
      { enabled: false, code },
      {
        onSuccess: ({ message }) => {
          setStep({ kind: 'idle' });
          outcome.success(message ?? SECURITY_MESSAGES.twoFactorDisabled);
        },
        onError: (error) => onFailed(failed(error)),
      },
    );
  };

  const status =
    settings && step.kind !== 'codes' ? (
      <Badge
        color={enabled ? 'green' : 'gray'}
        variant="light"
        radius="sm"
        data-testid="two-factor-status"
      >
        {enabled ? SECURITY_TEXTS.twoFactorOn : SECURITY_TEXTS.twoFactorOff}
      </Badge>
    ) : null;

  return (
    <IconSection
      title={SECURITY_TEXTS.twoFactorTitle}
      icon={IconDeviceMobileMessage}
      color="violet"
      description={SECURITY_TEXTS.twoFactorDescription}
      testId="security-two-factor"
      actions={status}
    >
      <OutcomeAlert
        outcome={outcome.outcome}
        onDismiss={outcome.dismiss}
        testId="two-factor-outcome"
      />
      <QueryStates
        query={settingsQuery}
        loadingLabel="Loading two-factor sign-in"
        skeletonRows={2}
        errorTitle={SECURITY_TEXTS.loadSettingsFailed}
        errorTestId="two-factor-error"
      />
      {settings === null ? <EmptyText>{SECURITY_TEXTS.settingsUnavailable}</EmptyText> : null}
      {settings ? (
        <Box>
          {step.kind === 'setup' ? (
            <SetupStep
              step={step}
              pending={twoFactorMutation.isPending}
              onVerify={handleVerify}
              onCancel={() => setStep({ kind: 'idle' })}
            />
          ) : null}
          {step.kind === 'codes' ? (
            <RecoveryCodes
              codes={step.codes}
              message={step.message}
              onSaved={() => setStep({ kind: 'idle' })}
            />
          ) : null}
          {step.kind === 'disable' ? (
            <DisableStep
              pending={twoFactorMutation.isPending}
              onDisable={handleDisable}
              onCancel={() => setStep({ kind: 'idle' })}
            />
          ) : null}
          {step.kind === 'idle' && !enabled ? (
            <Stack gap="sm" align="flex-start">
              <Text size="sm" c="dimmed">
                {SECURITY_TEXTS.twoFactorOffHelp}
              </Text>
              <Button onClick={handleStart} loading={twoFactorMutation.isPending}>
                {SECURITY_TEXTS.turnOn}
              </Button>
            </Stack>
          ) : null}
          {step.kind === 'idle' && enabled ? (
            <Stack gap="sm" align="flex-start">
              <Text size="sm" data-testid="recovery-codes-remaining">
                {SECURITY_TEXTS.recoveryCodesRemaining(settings.recoveryCodesRemaining)}
              </Text>
              <Button
                variant="light"
                color="red"
                onClick={() => {
                  outcome.dismiss();
                  setStep({ kind: 'disable' });
                }}
              >
                {SECURITY_TEXTS.turnOff}
              </Button>
            </Stack>
          ) : null}
        </Box>
      ) : null}
    </IconSection>
  );
}

/** The set-up step from the server's answer to `{enabled: true}`. */
function setupStep(data: TwoFactorResponse, message: string | undefined): Step {
  return {
    kind: 'setup',
    secret: data.totpSecret ?? '',
    qrCodeDataUrl: data.qrCodeDataUrl ?? null,
    message: message ?? SECURITY_MESSAGES.twoFactorSetupStarted,
  };
}

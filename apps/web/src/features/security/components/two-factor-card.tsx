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
import { useState, type FormEvent, type ReactNode } from 'react';
import { failureReason } from '@/lib/failure-text';
import { useSecuritySettingsQuery } from '../api/get-security-settings';
import { useTwoFactorMutation } from '../api/two-factor';
import { useOutcome } from '../hooks/use-outcome';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { RecoveryCodes } from './recovery-codes';
import { SecuritySection } from './security-section';
import { SettingsStates } from './settings-states';

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

type SubmitCode = (code: string, onFailed: (reason: string) => void) => void;

interface CodeStepFormProps {
  /** The form's accessible name. */
  name: string;
  /** What the step says above the code field. */
  intro: ReactNode;
  codeLabel: string;
  /** Whether a cleaned code is worth sending. */
  isValid: (code: string) => boolean;
  numeric?: boolean;
  maxLength: number;
  maw: number;
  submitLabel: string;
  submitColor?: string;
  pending: boolean;
  onSubmit: SubmitCode;
  onCancel: () => void;
}

/** A step that asks for a code: the field says what is wrong with it, or why the server refused it. */
function CodeStepForm({
  name,
  intro,
  codeLabel,
  isValid,
  numeric = false,
  maxLength,
  maw,
  submitLabel,
  submitColor,
  pending,
  onSubmit,
  onCancel,
}: CodeStepFormProps) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const cleaned = cleanCode(code);
    if (!isValid(cleaned)) {
      setError(SECURITY_MESSAGES.twoFactorCodeRequired);
      return;
    }
    setError(null);
    onSubmit(cleaned, setError);
  };

  return (
    <form onSubmit={handleSubmit} aria-label={name} noValidate>
      <Stack gap="sm">
        {intro}
        <TextInput
          label={codeLabel}
          value={code}
          onChange={(event) => setCode(event.currentTarget.value)}
          inputMode={numeric ? 'numeric' : undefined}
          autoComplete="one-time-code"
          maxLength={maxLength}
          maw={maw}
          error={error}
          data-autofocus
        />
        <Group gap="xs">
          <Button type="submit" color={submitColor} loading={pending}>
            {submitLabel}
          </Button>
          <Button variant="default" onClick={onCancel} disabled={pending}>
            {SECURITY_TEXTS.cancel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

interface SetupStepProps {
  step: Extract<Step, { kind: 'setup' }>;
  pending: boolean;
  onVerify: SubmitCode;
  onCancel: () => void;
}

/** Scan the QR code (or type the key), then prove it with a first code. */
function SetupStep({ step, pending, onVerify, onCancel }: SetupStepProps) {
  return (
    <CodeStepForm
      name="Set up two-factor sign-in"
      intro={
        <>
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
        </>
      }
      codeLabel={SECURITY_TEXTS.codeLabel}
      isValid={(code) => TOTP_PATTERN.test(code)}
      numeric
      maxLength={TOTP_DIGITS + 2}
      maw={220}
      submitLabel={SECURITY_TEXTS.verifyAndTurnOn}
      pending={pending}
      onSubmit={onVerify}
      onCancel={onCancel}
    />
  );
}

interface DisableStepProps {
  pending: boolean;
  onDisable: SubmitCode;
  onCancel: () => void;
}

/** Turning it off asks for proof: a current code or an unused recovery code. */
function DisableStep({ pending, onDisable, onCancel }: DisableStepProps) {
  return (
    <CodeStepForm
      name="Turn off two-factor sign-in"
      intro={<Text size="sm">{SECURITY_TEXTS.turnOffHelp}</Text>}
      codeLabel={SECURITY_TEXTS.turnOffCodeLabel}
      isValid={(code) => code !== ''}
      maxLength={64}
      maw={260}
      submitLabel={SECURITY_TEXTS.confirmTurnOff}
      submitColor="red"
      pending={pending}
      onSubmit={onDisable}
      onCancel={onCancel}
    />
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
        onError: (error) => outcome.failed(SECURITY_TEXTS.twoFactorFailed, error),
      },
    );
  };

  const handleVerify: SubmitCode = (code, onFailed) => {
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

  const handleDisable: SubmitCode = (code, onFailed) => {
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
    <SecuritySection section="two-factor" actions={status} outcome={outcome}>
      <SettingsStates
        query={settingsQuery}
        loadingLabel="Loading two-factor sign-in"
        errorTestId="two-factor-error"
      />
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
    </SecuritySection>
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

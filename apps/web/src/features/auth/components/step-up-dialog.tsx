import { Anchor, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import {
  STEP_UP_MESSAGES,
  reauthenticateRequestSchema,
  type ReauthenticateRequest,
} from '@perch/shared';
import { useState, type FormEvent } from 'react';
import { COMMON_TEXTS } from '@/components/common-texts';
import { useStepUp } from '../hooks/use-step-up';
import { PasswordField } from './password-field';

type Proof = 'password' | 'code';

export const STEP_UP_TEXTS = {
  title: 'Confirm it is you',
  passwordLabel: 'Password',
  codeLabel: 'Two-factor or recovery code',
  useCode: 'Use a two-factor code instead',
  usePassword: 'Use your password instead',
  confirm: 'Confirm',
} as const;

interface ProofFormProps {
  pending: boolean;
  /** The server's refusal of the last proof. */
  refusal: string | null;
  onConfirm: (proof: ReauthenticateRequest) => void;
  onCancel: () => void;
}

/** The password (or a code), checked with the request's own schema before it is sent. */
function ProofForm({ pending, refusal, onConfirm, onCancel }: ProofFormProps) {
  const [kind, setKind] = useState<Proof>('password');
  const [value, setValue] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const proof = kind === 'password' ? { password: value } : { code: value };
    const checked = reauthenticateRequestSchema.safeParse(proof);
    if (!checked.success) {
      setInvalid(checked.error.issues[0]?.message ?? STEP_UP_MESSAGES.proofRequired);
      return;
    }
    setInvalid(null);
    onConfirm(proof);
  };

  const handleKindChange = () => {
    setKind((previous) => (previous === 'password' ? 'code' : 'password'));
    setValue('');
    setInvalid(null);
  };

  const error = invalid ?? refusal;
  return (
    <form onSubmit={handleSubmit} aria-label={STEP_UP_TEXTS.title} noValidate>
      <Stack gap="sm">
        <Text size="sm">{STEP_UP_MESSAGES.required}</Text>
        {kind === 'password' ? (
          <PasswordField
            label={STEP_UP_TEXTS.passwordLabel}
            value={value}
            onChange={(event) => setValue(event.currentTarget.value)}
            autoComplete="current-password"
            error={error}
            data-autofocus
          />
        ) : (
          <TextInput
            label={STEP_UP_TEXTS.codeLabel}
            value={value}
            onChange={(event) => setValue(event.currentTarget.value)}
            autoComplete="one-time-code"
            maxLength={64}
            error={error}
            data-autofocus
          />
        )}
        <Anchor component="button" type="button" size="sm" onClick={handleKindChange}>
          {kind === 'password' ? STEP_UP_TEXTS.useCode : STEP_UP_TEXTS.usePassword}
        </Anchor>
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onCancel} disabled={pending}>
            {COMMON_TEXTS.cancel}
          </Button>
          <Button type="submit" loading={pending}>
            {STEP_UP_TEXTS.confirm}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * The step-up dialog of a screen with sensitive changes (Settings, Security): opens when one is
 * refused for want of a recent password, and sends it again once the person has confirmed.
 * Cancel lets the change fail with the server's words.
 */
export function StepUpDialog() {
  const stepUp = useStepUp();
  return (
    <Modal opened={stepUp.open} onClose={stepUp.cancel} title={STEP_UP_TEXTS.title} centered>
      {stepUp.open ? (
        <ProofForm
          pending={stepUp.pending}
          refusal={stepUp.error}
          onConfirm={stepUp.confirm}
          onCancel={stepUp.cancel}
        />
      ) : null}
    </Modal>
  );
}

import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { MESSAGES, SECURITY_MESSAGES, emailSchema } from '@perch/shared';
import { type FormEvent } from 'react';
import { ApiError } from '@/lib/api-client';
import { useChangeEmailMutation } from '../api/change-email';
import { useFieldForm } from '../hooks/use-field-form';
import { useOutcome } from '../hooks/use-outcome';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { SecretField } from './secret-field';
import { SecuritySection } from './security-section';

type Field = 'email' | 'currentPassword';
type FieldErrors = Partial<Record<Field, string>>;

const EMPTY: Record<Field, string> = { email: '', currentPassword: '' };

/** The server's refusals that belong under a field rather than in the card's banner. */
const FIELD_OF_CODE: Record<string, Field> = {
  CURRENT_PASSWORD_WRONG: 'currentPassword',
  EMAIL_TAKEN: 'email',
  EMAIL_UNCHANGED: 'email',
  VALIDATION_ERROR: 'email',
};

function validate(values: Record<Field, string>): FieldErrors {
  const errors: FieldErrors = {};
  const email = emailSchema.safeParse(values.email);
  if (!email.success) errors.email = email.error.issues[0]?.message;
  if (values.currentPassword === '') errors.currentPassword = MESSAGES.loginPasswordRequired;
  return errors;
}

export interface ChangeEmailCardProps {
  /** The address the account has now. */
  currentEmail: string;
  /** After the server took the new address (the app reads the session check again). */
  onChanged?: (email: string) => void;
}

/** A new email address, confirmed with the current password; other sessions stay signed in. */
export function ChangeEmailCard({ currentEmail, onChanged }: ChangeEmailCardProps) {
  const changeMutation = useChangeEmailMutation();
  const outcome = useOutcome();
  const { values, errors, setErrors, setValue, check, reset } = useFieldForm(EMPTY, validate);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!check()) return;
    outcome.dismiss();
    changeMutation.mutate(values, {
      onSuccess: ({ data, message }) => {
        reset();
        outcome.success(message ?? SECURITY_MESSAGES.emailChanged);
        onChanged?.(data.email);
      },
      onError: (error) => {
        const field = error instanceof ApiError ? FIELD_OF_CODE[error.code] : undefined;
        if (field && error instanceof ApiError && error.serverMessage) {
          setErrors({ [field]: error.serverMessage });
          return;
        }
        outcome.failed(SECURITY_TEXTS.changeEmailFailed, error);
      },
    });
  };

  return (
    <SecuritySection section="email" outcome={outcome}>
      <form onSubmit={handleSubmit} aria-label={SECURITY_TEXTS.changeEmail} noValidate>
        <Stack gap="sm">
          {currentEmail ? (
            <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
              {SECURITY_TEXTS.currentEmail(currentEmail)}
            </Text>
          ) : null}
          <TextInput
            label={SECURITY_TEXTS.newEmail}
            type="email"
            autoComplete="email"
            value={values.email}
            onChange={(event) => setValue('email', event.currentTarget.value)}
            error={errors.email}
          />
          <SecretField
            label={SECURITY_TEXTS.currentPassword}
            autoComplete="current-password"
            value={values.currentPassword}
            onChange={(event) => setValue('currentPassword', event.currentTarget.value)}
            error={errors.currentPassword}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={changeMutation.isPending}>
              {SECURITY_TEXTS.changeEmail}
            </Button>
          </Group>
        </Stack>
      </form>
    </SecuritySection>
  );
}

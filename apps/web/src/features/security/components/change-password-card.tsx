import { Button, Group, Stack } from '@mantine/core';
import { MESSAGES, SECURITY_MESSAGES, isCommonPassword, passwordSchema } from '@perch/shared';
import { Fragment, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '@/lib/api-client';
import { useChangePasswordMutation } from '../api/change-password';
import { useFieldForm } from '../hooks/use-field-form';
import { useOutcome } from '../hooks/use-outcome';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { SecretField } from './secret-field';
import { SecuritySection } from './security-section';

type Field = 'currentPassword' | 'newPassword' | 'confirmPassword';
type FieldErrors = Partial<Record<Field, string>>;

const EMPTY: Record<Field, string> = { currentPassword: '', newPassword: '', confirmPassword: '' };

const FIELDS: { field: Field; label: string; autoComplete: string }[] = [
  {
    field: 'currentPassword',
    label: SECURITY_TEXTS.currentPassword,
    autoComplete: 'current-password',
  },
  { field: 'newPassword', label: SECURITY_TEXTS.newPassword, autoComplete: 'new-password' },
  { field: 'confirmPassword', label: SECURITY_TEXTS.confirmPassword, autoComplete: 'new-password' },
];

function validate(values: Record<Field, string>): FieldErrors {
  const errors: FieldErrors = {};
  if (values.currentPassword === '') errors.currentPassword = MESSAGES.loginPasswordRequired;
  const fresh = passwordSchema.safeParse(values.newPassword);
  if (!fresh.success) errors.newPassword = fresh.error.issues[0]?.message;
  else if (isCommonPassword(values.newPassword)) errors.newPassword = MESSAGES.passwordTooCommon;
  if (values.confirmPassword !== values.newPassword) {
    errors.confirmPassword = MESSAGES.passwordsDoNotMatch;
  }
  return errors;
}

export interface ChangePasswordCardProps {
  /** Guidance under the new password (the app passes the shared strength meter). */
  strengthMeter?: (password: string) => ReactNode;
}

/** Current, new and confirmed password; the server signs the other sessions out. */
export function ChangePasswordCard({ strengthMeter }: ChangePasswordCardProps) {
  const changeMutation = useChangePasswordMutation();
  const outcome = useOutcome();
  const { values, errors, setErrors, setValue, check, reset } = useFieldForm(EMPTY, validate);

  const handleSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!check()) return;
    outcome.dismiss();
    changeMutation.mutate(
      { currentPassword: values.currentPassword, newPassword: values.newPassword },
      {
        onSuccess: ({ message }) => {
          reset();
          outcome.success(message ?? SECURITY_MESSAGES.passwordChanged);
        },
        onError: (error) => {
          if (
            error instanceof ApiError &&
            error.serverMessage === SECURITY_MESSAGES.currentPasswordWrong
          ) {
            setErrors({ currentPassword: error.serverMessage });
            return;
          }
          // The server checks a longer list of common passwords than the form does.
          if (error instanceof ApiError && error.code === 'PASSWORD_TOO_COMMON') {
            setErrors({ newPassword: error.serverMessage ?? MESSAGES.passwordTooCommon });
            return;
          }
          outcome.failed(SECURITY_TEXTS.changePasswordFailed, error);
        },
      },
    );
  };

  return (
    <SecuritySection section="password" outcome={outcome}>
      <form onSubmit={handleSubmit} aria-label={SECURITY_TEXTS.changePassword} noValidate>
        <Stack gap="sm">
          {FIELDS.map(({ field, label, autoComplete }) => (
            <Fragment key={field}>
              <SecretField
                label={label}
                autoComplete={autoComplete}
                value={values[field]}
                onChange={(event) => setValue(field, event.currentTarget.value)}
                error={errors[field]}
              />
              {field === 'newPassword' ? strengthMeter?.(values.newPassword) : null}
            </Fragment>
          ))}
          <Group justify="flex-end">
            <Button type="submit" loading={changeMutation.isPending}>
              {SECURITY_TEXTS.changePassword}
            </Button>
          </Group>
        </Stack>
      </form>
    </SecuritySection>
  );
}

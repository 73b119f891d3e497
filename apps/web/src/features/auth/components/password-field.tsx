import { PasswordInput, type PasswordInputProps } from '@mantine/core';

/**
 * Mantine's PasswordInput with a focusable show/hide toggle whose name does not contain
 * "password", so the field is the only thing labelled 'Password' on the page. For the
 * signed-in app (the step-up dialog); the sign-in and registration forms use the plain
 * PasswordField of components/plain/text-field.tsx, which behaves the same.
 */
export function PasswordField(props: PasswordInputProps) {
  return (
    <PasswordInput
      visibilityToggleFocusable
      visibilityToggleButtonProps={{ 'aria-label': 'Show characters' }}
      {...props}
    />
  );
}

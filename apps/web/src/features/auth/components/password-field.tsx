import { PasswordInput, type PasswordInputProps } from '@mantine/core';

/**
 * Mantine's PasswordInput with a focusable show/hide toggle whose name does not contain
 * "password", so the field is the only thing labelled 'Password' on the page.
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

import { Button, Group, Stack, TextInput, type TextInputProps } from '@mantine/core';
import { IconSend } from '@tabler/icons-react';
import type { FormEvent } from 'react';
import type { IdEditor } from '../hooks/use-id-editor';

/** Sends a test message: the channel's Test button, in its form and beside a saved ID. */
export function TestButton({
  color,
  testing,
  onTest,
}: {
  color?: string;
  testing: boolean;
  onTest: () => void;
}) {
  return (
    <Button
      variant="light"
      color={color}
      leftSection={<IconSend size={16} />}
      loading={testing}
      onClick={onTest}
    >
      Test
    </Button>
  );
}

export interface IdFormProps {
  /** The typed value and its error (useIdEditor). */
  editor: IdEditor;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  /** The field: label, description, placeholder, inputMode, leftSection. */
  field: Pick<
    TextInputProps,
    'label' | 'description' | 'placeholder' | 'inputMode' | 'leftSection'
  >;
  /** The accent of Save and Test. */
  color?: string;
  saving: boolean;
  /** Sends a test message to the typed value; leave it out for a form without Test. */
  onTest?: () => void;
  testing?: boolean;
  /** Closes the form without saving; leave it out while nothing is stored yet. */
  onCancel?: () => void;
}

/** The form of a Settings card that stores one ID or name: the field, Save, Test and Cancel. */
export function IdForm({
  editor,
  onSubmit,
  field,
  color,
  saving,
  onTest,
  testing = false,
  onCancel,
}: IdFormProps) {
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="sm">
        <TextInput
          {...field}
          autoComplete="off"
          value={editor.input}
          error={editor.inputError ?? undefined}
          onChange={(event) => editor.change(event.currentTarget.value)}
        />
        <Group gap="xs">
          <Button type="submit" color={color} loading={saving}>
            Save
          </Button>
          {onTest ? <TestButton color={color} testing={testing} onTest={onTest} /> : null}
          {onCancel ? (
            <Button variant="default" onClick={onCancel}>
              Cancel
            </Button>
          ) : null}
        </Group>
      </Stack>
    </form>
  );
}

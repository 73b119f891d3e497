import { Alert, Text } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';
import type { Outcome } from '../hooks/use-outcome';

export interface OutcomeAlertProps {
  outcome: Outcome | null;
  onDismiss: () => void;
  /** Prefix of the test ids: `${testId}-success`, `${testId}-error`. */
  testId: string;
}

/** The green or red line of a card's last action. */
export function OutcomeAlert({ outcome, onDismiss, testId }: OutcomeAlertProps) {
  if (!outcome) return null;
  const isError = outcome.kind === 'error';
  return (
    <Alert
      color={isError ? 'red' : 'green'}
      variant="light"
      icon={isError ? <IconAlertCircle size={18} /> : <IconCircleCheck size={18} />}
      role={isError ? 'alert' : 'status'}
      withCloseButton
      closeButtonLabel="Dismiss"
      onClose={onDismiss}
      data-testid={`${testId}-${outcome.kind}`}
      mb="md"
    >
      <Text size="sm" fw={500}>
        {outcome.text}
      </Text>
      {outcome.details ? (
        <Text size="xs" c="dimmed" mt={2}>
          {outcome.details}
        </Text>
      ) : null}
    </Alert>
  );
}

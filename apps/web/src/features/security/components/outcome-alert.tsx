import { MessageAlert } from '@/components/message-alert';
import type { Outcome } from '../hooks/use-outcome';

export interface OutcomeAlertProps {
  outcome: Outcome | null;
  onDismiss: () => void;
  /** Prefix of the test ids: `${testId}-success`, `${testId}-error`. */
  testId: string;
}

/** The green or red line of a security card's last action. */
export function OutcomeAlert({ outcome, onDismiss, testId }: OutcomeAlertProps) {
  return (
    <MessageAlert
      message={outcome}
      onDismiss={onDismiss}
      testId={(kind) => `${testId}-${kind}`}
      mb="md"
    />
  );
}

import { Button } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';
import type { CSSProperties } from 'react';

export interface DangerButtonProps {
  icon: Icon;
  label: string;
  /** The label with what it acts on, e.g. 'Global Delete @nasa'. */
  'aria-label': string;
  /** Spins while the request for this row runs. */
  busy: boolean;
  onClick: () => void;
  disabled?: boolean;
  title?: string;
  style?: CSSProperties;
}

/** The small red button of a destructive row action (delete, clear, revoke). */
export function DangerButton({ icon: ButtonIcon, label, busy, ...rest }: DangerButtonProps) {
  return (
    <Button
      size="xs"
      color="red"
      variant="light"
      leftSection={<ButtonIcon size={14} />}
      loading={busy}
      {...rest}
    >
      {label}
    </Button>
  );
}

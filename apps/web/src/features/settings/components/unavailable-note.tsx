import { Alert } from '@mantine/core';
import { IconServerCog } from '@tabler/icons-react';

/** A channel this server cannot use (its bot token is missing): what the operator must do. */
export function UnavailableNote({ hint }: { hint: string }) {
  return (
    <Alert
      color="orange"
      variant="light"
      icon={<IconServerCog size={18} />}
      data-testid="unavailable-hint"
    >
      {hint}
    </Alert>
  );
}

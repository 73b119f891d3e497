import { Alert, Button, Skeleton, Stack, Text } from '@mantine/core';
import { IconPlugConnectedX } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { ADMIN_TEXTS } from '../utils/admin-texts';

export interface SectionErrorProps {
  /** The spec's text, e.g. 'Failed to load users.'. */
  title: string;
  /** Why, in the server's words or the spec's fallback. */
  reason: string;
  retrying: boolean;
  onRetry: () => void;
  testId?: string;
}

/** A section that could not load: what failed, why, and a retry. */
export function SectionError({ title, reason, retrying, onRetry, testId }: SectionErrorProps) {
  return (
    <Alert
      color="red"
      variant="light"
      icon={<IconPlugConnectedX size={18} />}
      title={title}
      data-testid={testId}
    >
      <Stack gap="xs" align="flex-start">
        {reason !== title ? <Text size="sm">{reason}</Text> : null}
        <Button size="xs" variant="light" color="red" loading={retrying} onClick={onRetry}>
          {ADMIN_TEXTS.retry}
        </Button>
      </Stack>
    </Alert>
  );
}

/** Row-shaped placeholders while a section loads. */
export function SectionSkeleton({ label, rows = 3 }: { label: string; rows?: number }) {
  return (
    <Stack gap="xs" aria-busy="true" aria-label={label}>
      {Array.from({ length: rows }, (_, index) => (
        <Skeleton key={index} h={40} radius="md" />
      ))}
    </Stack>
  );
}

/** The quiet line of an empty list. */
export function EmptyText({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <Text size="sm" c="dimmed" py="sm" data-testid={testId}>
      {children}
    </Text>
  );
}

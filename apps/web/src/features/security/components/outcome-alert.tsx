import { Alert, Button, Skeleton, Stack, Text } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck, IconPlugConnectedX } from '@tabler/icons-react';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { Outcome } from '../hooks/use-outcome';
import { SECURITY_TEXTS } from '../utils/security-texts';
import { failureReason } from '../utils/failure';

export interface SectionErrorProps {
  /** What failed, e.g. 'Failed to load security events'. */
  title: string;
  /** Why, in the server's words or the fallback. */
  reason: string;
  retrying: boolean;
  onRetry: () => void;
  testId?: string;
}

/** A card that could not load: what failed, why, and a retry. */
export function SectionError({ title, reason, retrying, onRetry, testId }: SectionErrorProps) {
  return (
    <Alert
      color="red"
      variant="light"
      icon={<IconPlugConnectedX size={18} />}
      title={title}
      role="alert"
      data-testid={testId}
    >
      <Stack gap="xs" align="flex-start">
        {reason !== title ? <Text size="sm">{reason}</Text> : null}
        <Button size="xs" variant="light" color="red" loading={retrying} onClick={onRetry}>
          {SECURITY_TEXTS.retry}
        </Button>
      </Stack>
    </Alert>
  );
}

/** Row-shaped placeholders while a card loads. */
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

export interface QueryStatesProps {
  query: Pick<
    UseQueryResult<unknown>,
    'data' | 'error' | 'isPending' | 'isError' | 'isFetching' | 'refetch'
  >;
  /** The name of the skeleton during the first load. */
  loadingLabel: string;
  skeletonRows?: number;
  /** The fallback when the server does not say why: the card's 'Failed to load ...' text. */
  errorText: string;
  errorTestId?: string;
}

/** A card's loading skeleton, and its error with a retry while there is nothing to show. */
export function QueryStates({
  query,
  loadingLabel,
  skeletonRows,
  errorText,
  errorTestId,
}: QueryStatesProps) {
  if (query.isPending) return <SectionSkeleton label={loadingLabel} rows={skeletonRows} />;
  if (query.isError && query.data === undefined) {
    return (
      <SectionError
        title={errorText}
        reason={failureReason(query.error, errorText)}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
        testId={errorTestId}
      />
    );
  }
  return null;
}

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

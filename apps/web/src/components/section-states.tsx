import { Alert, Button, Skeleton, Stack, Text } from '@mantine/core';
import { IconPlugConnectedX } from '@tabler/icons-react';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ADMIN_TEXTS } from '../utils/admin-texts';
import { failureReason } from '../utils/failure';

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

export interface QueryStatesProps {
  query: Pick<
    UseQueryResult<unknown>,
    'data' | 'error' | 'isPending' | 'isError' | 'isFetching' | 'refetch'
  >;
  /** The name of the skeleton during the first load. */
  loadingLabel: string;
  /** The error's title when nothing could be loaded. */
  errorTitle: string;
  /** Why, when the server does not say (the spec's client fallback). */
  errorFallback: string;
  errorTestId?: string;
  /** The line of a list that arrived empty; leave it out for data that is not a list. */
  emptyText?: ReactNode;
  emptyTestId?: string;
}

/**
 * A section's loading skeleton, its error with a retry while there is nothing to show, and the
 * line of an empty list.
 */
export function QueryStates({
  query,
  loadingLabel,
  errorTitle,
  errorFallback,
  errorTestId,
  emptyText,
  emptyTestId,
}: QueryStatesProps) {
  return (
    <>
      {query.isPending ? <SectionSkeleton label={loadingLabel} /> : null}
      {query.isError && !query.data ? (
        <SectionError
          title={errorTitle}
          reason={failureReason(query.error, errorFallback)}
          retrying={query.isFetching}
          onRetry={() => void query.refetch()}
          testId={errorTestId}
        />
      ) : null}
      {emptyText !== undefined && Array.isArray(query.data) && query.data.length === 0 ? (
        <EmptyText testId={emptyTestId}>{emptyText}</EmptyText>
      ) : null}
    </>
  );
}

import { Alert, Button, Skeleton, Stack, Text } from '@mantine/core';
import { IconPlugConnectedX } from '@tabler/icons-react';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { failureReason } from '@/lib/failure-text';
import { COMMON_TEXTS } from './common-texts';

export interface SectionErrorProps {
  /** What failed, e.g. 'Failed to load users.'. */
  title: string;
  /** Why, in the server's words or the spec's fallback. */
  reason: string;
  /** A retry is under way: the button spins. */
  retrying?: boolean;
  /** Leave it out where nothing can be retried from here. */
  onRetry?: () => void;
  testId?: string;
  /** The smaller type of a narrow column (the sidebar), without the icon. */
  compact?: boolean;
}

/** A section or card that could not load: what failed, why, and a retry. */
export function SectionError({
  title,
  reason,
  retrying = false,
  onRetry,
  testId,
  compact = false,
}: SectionErrorProps) {
  return (
    <Alert
      color="red"
      variant="light"
      icon={compact ? undefined : <IconPlugConnectedX size={18} />}
      title={title}
      role="alert"
      data-testid={testId}
      p={compact ? 'xs' : undefined}
      styles={compact ? { title: { fontSize: 'var(--mantine-font-size-xs)' } } : undefined}
    >
      <Stack gap="xs" align="flex-start">
        {reason !== title ? <Text size={compact ? 'xs' : 'sm'}>{reason}</Text> : null}
        {onRetry ? (
          <Button
            size={compact ? 'compact-xs' : 'xs'}
            variant="light"
            color="red"
            loading={retrying}
            onClick={onRetry}
          >
            {COMMON_TEXTS.retry}
          </Button>
        ) : null}
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
  skeletonRows?: number;
  /** The error's title when nothing could be loaded, e.g. 'Failed to load security events'. */
  errorTitle: string;
  /** Why, when the server does not say (the spec's client fallback); the title by default. */
  errorFallback?: string;
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
  skeletonRows,
  errorTitle,
  errorFallback = errorTitle,
  errorTestId,
  emptyText,
  emptyTestId,
}: QueryStatesProps) {
  if (query.isPending) return <SectionSkeleton label={loadingLabel} rows={skeletonRows} />;
  if (query.isError && (query.data === undefined || query.data === null)) {
    return (
      <SectionError
        title={errorTitle}
        reason={failureReason(query.error, errorFallback)}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
        testId={errorTestId}
      />
    );
  }
  if (emptyText !== undefined && Array.isArray(query.data) && query.data.length === 0) {
    return <EmptyText testId={emptyTestId}>{emptyText}</EmptyText>;
  }
  return null;
}

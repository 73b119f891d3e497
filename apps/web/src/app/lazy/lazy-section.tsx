import { Alert, Button, Center, Loader, Stack, Text } from '@mantine/core';
import { IconPlugConnectedX } from '@tabler/icons-react';
import { Component, Suspense, type ErrorInfo, type ReactNode } from 'react';
import { COMMON_TEXTS } from '@/components/common-texts';
import { CHUNK_ERROR_TEXT, RELOAD_TEXT, isChunkLoadError } from './chunk-errors';

export interface LazySectionProps {
  /**
   * The status text while the section's code loads, e.g. 'Loading dashboard...'; without it
   * nothing shows until the section does (for parts that are often empty, like alerts).
   */
  loadingLabel?: string;
  /** What failed, e.g. 'The analytics could not be loaded.'. */
  errorTitle: string;
  /** Room kept for the section while it loads, so the page below does not jump. */
  minHeight?: number;
  children: ReactNode;
}

interface BoundaryProps {
  errorTitle: string;
  children: ReactNode;
}

interface BoundaryState {
  error: unknown;
}

/**
 * Shows the failure of its section in place, leaving the rest of the page working. A chunk that
 * could not be fetched is only fixed by a reload (React keeps the failed import); any other
 * failure may be retried in place.
 */
class SectionBoundary extends Component<BoundaryProps, BoundaryState> {
  override state: BoundaryState = { error: null };

  static getDerivedStateFromError(error: unknown): BoundaryState {
    return { error };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error(error, info.componentStack);
  }

  override render() {
    const { error } = this.state;
    if (error === null) return this.props.children;
    const chunkFailed = isChunkLoadError(error);
    return (
      <Alert
        color="red"
        variant="light"
        icon={<IconPlugConnectedX size={18} />}
        title={this.props.errorTitle}
        role="alert"
        data-testid="lazy-section-error"
      >
        <Stack gap="xs" align="flex-start">
          <Text size="sm">
            {chunkFailed
              ? CHUNK_ERROR_TEXT
              : error instanceof Error
                ? error.message
                : String(error)}
          </Text>
          <Button
            size="xs"
            variant="light"
            color="red"
            onClick={
              chunkFailed ? () => window.location.reload() : () => this.setState({ error: null })
            }
          >
            {chunkFailed ? RELOAD_TEXT : COMMON_TEXTS.retry}
          </Button>
        </Stack>
      </Alert>
    );
  }
}

/**
 * A part of a page whose code loads on demand (React.lazy): a loader while it loads, and an
 * error with a way out if it fails, in its own place on the page.
 */
export function LazySection({
  loadingLabel,
  errorTitle,
  minHeight = 240,
  children,
}: LazySectionProps) {
  return (
    <SectionBoundary errorTitle={errorTitle}>
      <Suspense
        fallback={
          loadingLabel === undefined ? null : (
            <Center mih={minHeight} role="status" aria-live="polite">
              <Stack align="center" gap="sm">
                <Loader type="dots" />
                <Text size="sm" c="dimmed">
                  {loadingLabel}
                </Text>
              </Stack>
            </Center>
          )
        }
      >
        {children}
      </Suspense>
    </SectionBoundary>
  );
}

import { Alert, Group, Loader, Text } from '@mantine/core';

export interface HandleListStatesProps {
  isPending: boolean;
  error: Error | null;
  /** Whether the list has no handles. */
  isEmpty: boolean;
  /** The line of an empty list, once it has loaded. */
  emptyText: string;
}

/** What a list of the user's handles shows while it loads, when it failed, and when it is empty. */
export function HandleListStates({ isPending, error, isEmpty, emptyText }: HandleListStatesProps) {
  return (
    <>
      {isPending ? (
        <Group gap="xs">
          <Loader size="sm" />
          <Text size="sm" c="dimmed">
            Loading handles...
          </Text>
        </Group>
      ) : null}
      {error ? (
        <Alert color="red" variant="light" title="Failed to load handles">
          {error.message}
        </Alert>
      ) : null}
      {!isPending && !error && isEmpty ? (
        <Text size="sm" c="dimmed">
          {emptyText}
        </Text>
      ) : null}
    </>
  );
}

import { Center, Loader, Stack, Text } from '@mantine/core';

export interface FullPageLoaderProps {
  /** Visible status text, e.g. 'Initializing...'; omit for a bare spinner. */
  label?: string;
}

/** A centered spinner that fills the viewport while something essential loads. */
export function FullPageLoader({ label }: FullPageLoaderProps) {
  return (
    <Center mih="100dvh" role="status" aria-live="polite" aria-label={label ?? 'Loading'}>
      <Stack align="center" gap="sm">
        <Loader size="lg" type="dots" />
        {label ? (
          <Text c="dimmed" size="sm">
            {label}
          </Text>
        ) : null}
      </Stack>
    </Center>
  );
}

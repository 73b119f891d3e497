import { Code, Stack, Text } from '@mantine/core';

/** The saved ID of a connected channel or account, labelled. */
export function SavedId({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={4}>
      <Text size="xs" c="dimmed" fw={600} tt="uppercase" style={{ letterSpacing: 0.4 }}>
        {label}
      </Text>
      <Code fz="sm" px="sm" py={6} style={{ alignSelf: 'flex-start', wordBreak: 'break-all' }}>
        {value}
      </Code>
    </Stack>
  );
}

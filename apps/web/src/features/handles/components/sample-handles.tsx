import { Button, Paper, SimpleGrid, Text } from '@mantine/core';

/** Sample handles offered while the list is empty: 8 of them. */
export const SUGGESTED_HANDLES = [
  'nasa',
  'spacex',
  'github',
  'nodejs',
  'reactjs',
  'vercel',
  'openai',
  'bbcworld',
] as const;

export interface SampleHandlesProps {
  /** Adds a handle (the add form's submit). */
  onAdd: (name: string) => void;
  disabled?: boolean;
  /** The sidebar's smaller box: two columns of small buttons. */
  compact?: boolean;
}

/**
 * The sample handles of an empty list, each added with one click: in the sidebar on wide
 * screens, and in the dashboard's handle panel (reachable on phones, where the sidebar is folded).
 */
export function SampleHandles({ onAdd, disabled = false, compact = false }: SampleHandlesProps) {
  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      bg="transparent"
      style={{ borderStyle: 'dashed' }}
      data-testid="sample-handles"
    >
      <Text size={compact ? 'xs' : 'sm'} c="dimmed" mb="xs">
        {compact ? 'No handles yet. Try one of these:' : 'Or start with one of these:'}
      </Text>
      <SimpleGrid
        cols={compact ? 2 : { base: 2, xs: 4 }}
        spacing={6}
        verticalSpacing={6}
        role="group"
        aria-label="Sample handles"
      >
        {SUGGESTED_HANDLES.map((name) => (
          <Button
            key={name}
            size={compact ? 'compact-xs' : 'compact-sm'}
            variant="light"
            aria-label={`Add @${name}`}
            disabled={disabled}
            onClick={() => onAdd(name)}
            styles={{ label: { overflow: 'hidden', textOverflow: 'ellipsis' } }}
          >
            @{name}
          </Button>
        ))}
      </SimpleGrid>
    </Paper>
  );
}

import { Alert, Button, Code, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconCheck, IconDownload, IconKey } from '@tabler/icons-react';
import { useState } from 'react';
import { CopyButton } from '@/components/copy-button';
import { SECURITY_TEXTS } from '../utils/security-texts';

/** The text file of the codes: a heading line, then one code a line. */
export function recoveryCodesFile(codes: readonly string[]): string {
  return ['Perch recovery codes', '', ...codes, ''].join('\n');
}

export interface RecoveryCodesProps {
  codes: readonly string[];
  /** The server's words for the change, shown above the codes. */
  message: string;
  /** The person says they keep the codes somewhere: they are not shown again. */
  onSaved: () => void;
}

/**
 * The recovery codes, shown once right after two-factor sign-in turns on: copied, downloaded as
 * a .txt, and put away with 'I have saved them'.
 */
export function RecoveryCodes({ codes, message, onSaved }: RecoveryCodesProps) {
  const [copyFailed, setCopyFailed] = useState(false);
  const text = codes.join('\n');
  return (
    <Stack gap="sm" data-testid="recovery-codes">
      <Alert color="green" variant="light" icon={<IconCheck size={18} />} role="status">
        {message}
      </Alert>
      <Group gap="xs" wrap="nowrap">
        <IconKey size={16} aria-hidden />
        <Text fw={600} size="sm">
          {SECURITY_TEXTS.recoveryCodesTitle}
        </Text>
      </Group>
      <Text size="sm" c="dimmed">
        {SECURITY_TEXTS.recoveryCodesHelp}
      </Text>
      <SimpleGrid
        component="ul"
        cols={2}
        spacing="xs"
        verticalSpacing={6}
        m={0}
        p={0}
        aria-label={SECURITY_TEXTS.recoveryCodesTitle}
        style={{ listStyle: 'none' }}
      >
        {codes.map((code) => (
          <li key={code}>
            <Code fz="sm" style={{ letterSpacing: 1, overflowWrap: 'anywhere' }}>
              {code}
            </Code>
          </li>
        ))}
      </SimpleGrid>
      {copyFailed ? (
        <Text size="xs" c="red" role="alert">
          {SECURITY_TEXTS.copyFailed}
        </Text>
      ) : null}
      <Group gap="xs" justify="space-between">
        <Group gap="xs">
          <CopyButton
            text={text}
            label="Copy the recovery codes"
            onFailed={() => setCopyFailed(true)}
          />
          <Button
            component="a"
            href={`data:text/plain;charset=utf-8,${encodeURIComponent(recoveryCodesFile(codes))}`}
            download={SECURITY_TEXTS.recoveryCodesFile}
            size="xs"
            variant="light"
            color="gray"
            leftSection={<IconDownload size={14} />}
          >
            {SECURITY_TEXTS.downloadCodes}
          </Button>
        </Group>
        <Button size="xs" onClick={onSaved}>
          {SECURITY_TEXTS.savedThem}
        </Button>
      </Group>
    </Stack>
  );
}

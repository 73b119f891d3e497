import { Button } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { copyText } from '@/lib/copy-text';
import { COMMON_TEXTS } from './common-texts';

/** How long 'Copied' shows after a copy. */
export const COPIED_FEEDBACK_MS = 2_000;

export interface CopyButtonProps {
  text: string;
  /** Names the button for screen readers, e.g. 'Copy the recovery codes'. */
  label: string;
  /** Its name for a moment after a copy; 'Copied: ' and the label by default. */
  copiedLabel?: string;
  onFailed: () => void;
}

/** Copies a text and says 'Copied' for a moment. */
export function CopyButton({
  text,
  label,
  copiedLabel = `${COMMON_TEXTS.copied}: ${label}`,
  onFailed,
}: CopyButtonProps) {
  const [copies, setCopies] = useState(0);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (copies === 0) return;
    const timer = setTimeout(() => setCopied(false), COPIED_FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [copies]);

  const handleCopy = async () => {
    try {
      await copyText(text);
      setCopied(true);
      setCopies((count) => count + 1);
    } catch {
      onFailed();
    }
  };

  return (
    <Button
      size="xs"
      variant="light"
      color={copied ? 'teal' : 'gray'}
      leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
      aria-label={copied ? copiedLabel : label}
      onClick={() => void handleCopy()}
    >
      {copied ? COMMON_TEXTS.copied : COMMON_TEXTS.copy}
    </Button>
  );
}

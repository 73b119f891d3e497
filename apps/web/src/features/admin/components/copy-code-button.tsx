import { Button } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { copyText } from '@/lib/copy-text';

/** How long 'Copied' shows after a copy. */
export const COPIED_FEEDBACK_MS = 2_000;

export interface CopyCodeButtonProps {
  code: string;
  onFailed: () => void;
}

/** Copies an invitation code and says 'Copied' for a moment. */
export function CopyCodeButton({ code, onFailed }: CopyCodeButtonProps) {
  const [copies, setCopies] = useState(0);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (copies === 0) return;
    const timer = setTimeout(() => setCopied(false), COPIED_FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [copies]);

  const handleCopy = async () => {
    try {
      await copyText(code);
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
      aria-label={copied ? `Copied ${code}` : `Copy ${code}`}
      onClick={() => void handleCopy()}
    >
      {copied ? 'Copied' : 'Copy'}
    </Button>
  );
}

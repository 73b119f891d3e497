import { Button } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';

/** One file a section offers: its format as the API names it, and the button's words. */
export interface ExportChoice<Format extends string> {
  format: Format;
  label: string;
}

export interface ExportButtonsProps<Format extends string> {
  /** The files offered, in the order the buttons show. */
  exports: readonly ExportChoice<Format>[];
  /** Where the API serves the file of one format. */
  url: (format: Format) => string;
}

/**
 * A download link per export format. The browser follows a plain link (a GET with the session
 * cookie), so the file streams to disk and no script holds the whole export in memory. Meant
 * for a section's `actions`, where the buttons wrap under the title on phones.
 */
export function ExportButtons<Format extends string>({ exports, url }: ExportButtonsProps<Format>) {
  return (
    <>
      {exports.map(({ format, label }) => (
        <Button
          key={format}
          component="a"
          href={url(format)}
          download
          size="xs"
          variant="default"
          leftSection={<IconDownload size={14} />}
        >
          {label}
        </Button>
      ))}
    </>
  );
}

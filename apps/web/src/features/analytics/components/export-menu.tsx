import { Box, Button, Menu } from '@mantine/core';
import type { CompleteAnalytics } from '@perch/shared';
import { IconChevronDown, IconDownload, IconFileSpreadsheet, IconJson } from '@tabler/icons-react';
import { buildExport, downloadFile, type ExportKind } from '../utils/export';

export interface ExportMenuProps {
  /** The payload on screen; the menu is disabled without one. */
  data: CompleteAnalytics | undefined;
}

/** Downloads of the payload on screen: all of it as JSON, the series or top tweets as CSV. */
export function ExportMenu({ data }: ExportMenuProps) {
  const handleExport = (kind: ExportKind) => {
    if (!data) return;
    const file = buildExport(data, kind);
    downloadFile(file.fileName, file.content, file.mimeType);
  };
  return (
    <Menu position="bottom-end" shadow="md" width={240}>
      <Menu.Target>
        <Button
          variant="default"
          leftSection={<IconDownload size={16} />}
          rightSection={<IconChevronDown size={14} />}
          disabled={!data}
          aria-label="Export"
          data-testid="export-analytics"
          px={{ base: 'xs', xs: 'md' }}
        >
          <Box component="span" visibleFrom="xs">
            Export
          </Box>
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Download</Menu.Label>
        <Menu.Item leftSection={<IconJson size={16} />} onClick={() => handleExport('complete')}>
          All analytics (JSON)
        </Menu.Item>
        <Menu.Item
          leftSection={<IconFileSpreadsheet size={16} />}
          onClick={() => handleExport('timeseries')}
        >
          Daily time series (CSV)
        </Menu.Item>
        <Menu.Item
          leftSection={<IconFileSpreadsheet size={16} />}
          onClick={() => handleExport('top-tweets')}
        >
          Top tweets (CSV)
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

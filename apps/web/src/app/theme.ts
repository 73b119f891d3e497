import {
  createTheme,
  localStorageColorSchemeManager,
  type MantineColorsTuple,
} from '@mantine/core';
import { COLOR_SCHEME_STORAGE_KEY } from '@/lib/color-scheme';

/** A cool slate for the dark scheme: calmer than pure gray next to the cyan accent. */
const slate: MantineColorsTuple = [
  '#dde3ec',
  '#aab4c3',
  '#8592a6',
  '#5e6b80',
  '#3d485b',
  '#2c3545',
  '#222a37',
  '#19202b',
  '#131923',
  '#0d1219',
];

export const theme = createTheme({
  primaryColor: 'cyan',
  primaryShade: { light: 7, dark: 5 },
  defaultRadius: 'md',
  colors: { dark: slate },
  fontFamily:
    'Inter, ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  headings: { fontWeight: '700' },
  cursorType: 'pointer',
});

/**
 * Dark by default; the choice is kept in localStorage, where the pages without Mantine read and
 * write it too (lib/color-scheme.ts). Colours used by those pages are in app/plain-theme.css,
 * which plain-theme.test.ts holds to this theme.
 */
export const colorSchemeManager = localStorageColorSchemeManager({
  key: COLOR_SCHEME_STORAGE_KEY,
});

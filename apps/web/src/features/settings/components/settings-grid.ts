/** Two cards side by side once the content area is wide enough (container query). */
export const SETTINGS_GRID_COLUMNS = { base: 1, '720px': 2 } as const;

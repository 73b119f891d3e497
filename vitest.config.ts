import { defineConfig } from 'vitest/config';

// One run over every workspace; each keeps its own config (environment, setup files).
export default defineConfig({
  test: {
    projects: ['packages/shared', 'apps/server', 'apps/web', 'tests'],
  },
});

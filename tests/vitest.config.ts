import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { name: 'workspace', include: ['**/*.test.ts'], testTimeout: 60_000 },
});

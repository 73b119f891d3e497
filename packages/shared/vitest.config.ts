import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@perch/source'] },
  test: { include: ['src/**/*.test.ts'] },
});

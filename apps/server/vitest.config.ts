import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@perch/source'] },
  ssr: { resolve: { conditions: ['@perch/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Four servers at once: run last and alone (vitest.scale-out.config.ts, scripts/test.mjs).
    exclude: ['test/scale-out/**', '**/node_modules/**'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});

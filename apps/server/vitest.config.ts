import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@perch/source'] },
  ssr: { resolve: { conditions: ['@perch/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});

import { defineConfig } from 'vitest/config';

/**
 * The scale-out test: two API and two worker processes on PostgreSQL (TEST_DATABASE_URL) and
 * Redis (TEST_REDIS_URL or redis://127.0.0.1:6379). `npm test` runs it last, alone.
 */
export default defineConfig({
  root: import.meta.dirname,
  resolve: { conditions: ['@perch/source'] },
  ssr: { resolve: { conditions: ['@perch/source'] } },
  test: {
    include: ['test/scale-out/**/*.test.ts'],
    environment: 'node',
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});

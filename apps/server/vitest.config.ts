import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@perch/source'] },
  ssr: { resolve: { conditions: ['@perch/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Four servers at once: run last and alone (vitest.scale-out.config.ts, scripts/test.mjs).
    exclude: ['test/scale-out/**', '**/node_modules/**'],
    environment: 'node',
    // Names the run's PostgreSQL schemas and drops those the test processes kept at the end.
    globalSetup: ['test/global-setup.ts'],
    // The files of a worker share one module graph instead of loading the server's modules
    // again for each of 150 files: 10.6 s of imports in a one-worker SQLite run against 114 s
    // (docs/decisions.md, "The suite's time"). Every test builds its own app and database.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});

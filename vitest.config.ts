import os from 'node:os';
import { defineConfig } from 'vitest/config';

// One run over every workspace; each keeps its own config (environment, setup files).
export default defineConfig({
  test: {
    projects: [
      'packages/shared',
      'apps/server',
      'apps/web',
      'apps/web/vitest.isolated.config.ts',
      'tests',
    ],
    // Vitest's default is one worker per core but one: a single worker on two cores. The files
    // mostly wait on databases, sockets and timers, so two share two cores well; a third only
    // adds contention (docs/benchmarks.md, "The whole suite").
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
  },
});

import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defaultClientConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
    conditions: ['@perch/source', ...defaultClientConditions],
  },
  test: {
    name: 'web',
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    // A hung test still fails, but a slow machine running two workers does not: a click-through
    // test that takes 1-2 s alone took over 5 s (Vitest's default) on a slow 2-core machine.
    testTimeout: 20_000,
    restoreMocks: true,
    unstubGlobals: true,
    // A jsdom and a module graph per file. Sharing them per worker took the project from 145 s
    // to 77-89 s, but the router's logout test then saw the dashboard fetch again after a
    // logout in 2 of 3 fresh-clone CI runs and 2 of 4 loaded runs (never with the file alone):
    // isolated until that is understood (docs/decisions.md, "The suite's time").
    isolate: true,
  },
});
